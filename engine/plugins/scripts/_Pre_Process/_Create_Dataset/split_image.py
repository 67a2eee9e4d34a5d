"""Split Image (NeuroCanvas built-in, NNC protocol): the images of a dataset CSV cut into
tiles, a dataset row per tile with what Restore Split Image needs (index, original size,
patch and overlap sizes, top and left). Definitions: engine/plugins/create_dataset.py."""

import argparse


def main():
    parser = argparse.ArgumentParser(
        description="Split Image\n\nCut the images of a dataset into patches (tiles), a row per "
        "patch;\nRestore Split Image puts them back together.",
        formatter_class=argparse.RawTextHelpFormatter,
    )
    parser.add_argument(
        "-i", "--input-csv", required=True, help="dataset CSV file containing the images (csv)"
    )
    parser.add_argument(
        "-v1",
        "--input-variable1",
        default="x",
        help="variables of the images to split, separated by commas (variable) default=x",
    )
    parser.add_argument(
        "-p1", "--patch-size1", type=int, default=64, help="patch size in pixels (int) default=64"
    )
    parser.add_argument(
        "-l1",
        "--overlap-size1",
        type=int,
        default=8,
        help="overlap with the next patch in pixels (int) default=8",
    )
    parser.add_argument(
        "-v2", "--input-variable2", help="more image variables, split with size 2 (variable)"
    )
    parser.add_argument(
        "-p2", "--patch-size2", type=int, default=64, help="patch size 2 in pixels (int) default=64"
    )
    parser.add_argument(
        "-l2", "--overlap-size2", type=int, default=8, help="overlap 2 in pixels (int) default=8"
    )
    from engine.plugins import pre_kit

    pre_kit.add_output_arguments(parser)
    args = parser.parse_args()

    from pathlib import Path

    from engine.plugins import create_dataset as cd
    from engine.plugins.errors import PluginError

    def run():
        folder = pre_kit.output_dir(args)
        source = cd.read_source(args.input_csv, option="--input-csv")
        settings = []  # (column, variable name, patch, overlap)
        for n, text in ((1, args.input_variable1), (2, args.input_variable2)):
            patch, overlap = getattr(args, f"patch_size{n}"), getattr(args, f"overlap_size{n}")
            for name in cd.columns_named(source, text, f"--input-variable{n}"):
                cd.check_tile(patch, overlap, str(n))
                k = source.column(name, f"--input-variable{n}")
                settings.append((k, source.header[k].split(":")[0], patch, overlap))
        if not settings:
            raise PluginError("--input-variable1: name the image column(s) to split")
        stem = f"split_{source.path.stem}"
        header = [
            f"# {h}" if any(k == s[0] for s in settings) else h for k, h in enumerate(source.header)
        ] + ["index"]
        for _, name, _, _ in settings:
            header += [
                f"{name}_{what}"
                for what in (
                    "original_height",
                    "original_width",
                    "patch_size",
                    "overlap_size",
                    "top",
                    "left",
                )
            ]
        header += [source.header[k] for k, _, _, _ in settings]

        def absolute(cell):  # the source's own files, named from the output folder
            path = source.path.parent / cell.replace("\\", "/")
            return (
                str(path.resolve()) if cell and not cd.is_number(cell) and path.is_file() else cell
            )

        groups, images = [], {}  # groups: the rows of each source row
        for r, row in enumerate(source.rows):
            pieces = []
            for k, name, patch, overlap in settings:
                where = source.where(r, k)
                image = cd.read_image(source.path.parent / row[k].replace("\\", "/"), where)
                height, width = image.shape[:2]
                if height < patch or width < patch:
                    raise PluginError(
                        f"{where}: {row[k]} is {width}x{height} pixels, smaller "
                        f"than a {patch}-pixel patch"
                    )
                tiles = cd.cut_tiles(image, patch, overlap)
                if pieces and len(pieces[0]) != len(tiles):
                    raise PluginError(
                        f"{where}: {row[k]} gives {len(tiles)} patches, the row's "
                        f"other image {len(pieces[0])} (sizes must match)"
                    )
                names = []
                for t, (top, left, tile) in enumerate(tiles):
                    rel = Path(stem, f"{r // 1000:04}", f"{name}_{r % 1000:03}_{t:04}.png")
                    images[rel] = tile
                    names.append((rel.as_posix(), [height, width, patch, overlap, top, left]))
                pieces.append(names)
            lines = []
            for t in range(len(pieces[0])):
                extra = [v for piece in pieces for v in piece[t][1]]
                lines.append([*map(absolute, row), r, *extra, *(piece[t][0] for piece in pieces)])
            groups.append(lines)
            pre_kit.progress(r + 1, len(source.rows))
        cd.split_rows(len(groups), args.ratio1, args.ratio2, args.shuffle, args.seed)  # checks
        # every check is done: now write the patches, then the dataset CSVs
        from PIL import Image

        for rel, tile in images.items():
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            Image.fromarray(tile).save(folder / rel)
        pre_kit.save_split(args, header, groups)
        print(f"{len(images)} patches of {len(source.rows)} images", flush=True)

    pre_kit.main(run, "Split Image")


if __name__ == "__main__":
    main()
