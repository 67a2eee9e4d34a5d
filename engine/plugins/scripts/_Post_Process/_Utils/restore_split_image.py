"""Restore Split Image (NeuroCanvas built-in, NNC protocol): the images split by Split Image
(or a network's outputs for those patches) put back together, one row per image.
Definitions: engine/plugins/create_dataset.py."""

import argparse


def main():
    parser = argparse.ArgumentParser(
        description="Restore Split Image\n\nPut the patches of Split Image back into whole images.",
        formatter_class=argparse.RawTextHelpFormatter,
    )
    parser.add_argument(
        "-i",
        "--input-csv",
        default="output_result.csv",
        help="dataset CSV file containing split images (csv) default=output_result.csv",
    )
    parser.add_argument(
        "-n", "--image_index", default="index", help="image index variable (variable) default=index"
    )
    parser.add_argument(
        "-v", "--input-variable", default="y'", help="variable of the patches (variable) default=y'"
    )
    for flag, name, what in (
        ("-H", "height", "original_height"),
        ("-W", "width", "original_width"),
        ("-p", "patch-size", "patch_size"),
        ("-l", "overlap-size", "overlap_size"),
        ("-y", "top", "top"),
        ("-x", "left", "left"),
    ):
        parser.add_argument(
            flag,
            f"--{name}-variable",
            default=f"y_{what}",
            help=f"{what.replace('_', ' ')} variable (variable) default=y_{what}",
        )
    parser.add_argument(
        "-o",
        "--output",
        default="restored_images.csv",
        help="output csv file (csv) default=restored_images.csv",
    )
    parser.add_argument(
        "-t", "--inherit-cols", help="columns copied from the first patch of each image (variables)"
    )
    args = parser.parse_args()

    from pathlib import Path

    from PIL import Image

    from engine.plugins import create_dataset as cd
    from engine.plugins import pre_kit
    from engine.plugins.errors import PluginError

    def run():
        source = cd.read_source(args.input_csv, option="--input-csv")
        cols = {
            o: source.column(getattr(args, o), f"--{o.replace('_', '-')}")
            for o in (
                "image_index",
                "input_variable",
                "height_variable",
                "width_variable",
                "patch_size_variable",
                "overlap_size_variable",
                "top_variable",
                "left_variable",
            )
        }
        inherit = [
            source.column(n, "--inherit-cols")
            for n in cd.columns_named(source, args.inherit_cols, "--inherit-cols")
        ]

        def integer(r, option):
            k = cols[option]
            text = source.rows[r][k]
            try:
                return int(float(text))
            except ValueError:
                raise PluginError(f"{source.where(r, k)}: {text!r} is not a number") from None

        images = {}  # index -> (height, width, overlap, tiles, first row)
        for r, row in enumerate(source.rows):
            index = integer(r, "image_index")
            height, width = integer(r, "height_variable"), integer(r, "width_variable")
            overlap = integer(r, "overlap_size_variable")
            k = cols["input_variable"]
            tile = cd.read_image(source.path.parent / row[k].replace("\\", "/"), source.where(r, k))
            patch = integer(r, "patch_size_variable")
            if tile.shape[:2] != (patch, patch):
                raise PluginError(
                    f"{source.where(r, k)}: {row[k]} is {tile.shape[1]}x"
                    f"{tile.shape[0]}, not the {patch}-pixel patch"
                )
            entry = images.setdefault(index, (height, width, overlap, [], r))
            entry[3].append((integer(r, "top_variable"), integer(r, "left_variable"), tile))
            pre_kit.progress(r + 1, len(source.rows))
        name = source.header[cols["input_variable"]].split(":")[0]
        safe = "".join(c if c.isalnum() or c in "_-" else "_" for c in name)
        out_rows = []
        for index, (height, width, overlap, tiles, first) in sorted(images.items()):
            image = cd.restore_image(tiles, height, width, overlap)
            rel = Path("restored", f"{safe}_{index:06}.png")
            (Path(rel.parent)).mkdir(exist_ok=True)
            Image.fromarray(image).save(rel)
            out_rows.append([index, rel.as_posix(), *(source.rows[first][k] for k in inherit)])
        header = ["index", f"{name}:image", *(source.header[k] for k in inherit)]
        cd.write_csv(Path(args.output), header, out_rows)
        print(f"{len(out_rows)} images restored", flush=True)

    pre_kit.main(run, "Restore Split Image")


if __name__ == "__main__":
    main()
