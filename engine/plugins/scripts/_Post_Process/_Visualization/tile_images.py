"""Tile Images: the images of a table's rows in one grid (NeuroCanvas built-in, NNC protocol)."""

from engine.plugins import script_kit


def main():
    parser = script_kit.parser(
        "Tile Images\n\nThe images of the table's rows (a selection of the output result, or "
        "all of it) tiled in one picture, row by row, e.g. to list the misclassified images."
    )
    script_kit.add_input(parser)
    parser.add_argument(
        "-v",
        "--variable",
        default="",
        help="image columns to tile, separated by commas; empty for every image (variables)",
    )
    parser.add_argument(
        "-w",
        "--image_width",
        type=int,
        default=-1,
        help="width of each image, -1 for the first image's (int) default=-1",
    )
    parser.add_argument(
        "-g",
        "--image_height",
        type=int,
        default=-1,
        help="height of each image, -1 for the first image's (int) default=-1",
    )
    parser.add_argument(
        "-c", "--num_column", type=int, default=32, help="images per row (int) default=32"
    )
    parser.add_argument(
        "-s", "--start_index", type=int, default=0, help="first row tiled (int) default=0"
    )
    parser.add_argument(
        "-e",
        "--end_index",
        type=int,
        default=-1,
        help="last row tiled, -1 for the last of the table (int) default=-1",
    )
    script_kit.add_output(parser, "tiled_images.png")
    args = parser.parse_args()

    from pathlib import Path

    def run():
        from engine.data.writers import save_image
        from engine.plugins import visual
        from engine.plugins.errors import PluginError

        header, rows = script_kit.read_table(args.input)
        base = Path(args.input).resolve().parent
        if args.variable:
            wanted = [v.strip() for v in args.variable.split(",") if v.strip()]
            names = [h.split(":")[0] for h in header]
            missing = [v for v in wanted if v not in names and v not in header]
            if missing:
                raise PluginError(f"--variable {', '.join(missing)}: the table has no such "
                                  f"column (it has {', '.join(header)})")  # fmt: skip
            picks = [header.index(v) if v in header else names.index(v) for v in wanted]
        else:
            picks = [k for k, h in enumerate(header) if h.endswith(":image")]
        end = len(rows) - 1 if args.end_index < 0 else min(args.end_index, len(rows) - 1)
        chosen = rows[max(0, args.start_index) : end + 1]
        files = []
        for row in chosen:
            for k in picks or range(len(row)):
                cell = row[k] if k < len(row) else ""
                if cell.lower().endswith(visual.IMAGE_SUFFIXES):
                    files.append(cell if Path(cell).is_absolute() else str(base / cell))
        if not files:
            raise PluginError(f"--input {args.input}: no image files in rows "
                              f"{args.start_index} to {end}")  # fmt: skip
        first = visual.read_image(files[0])
        size = (args.image_width if args.image_width > 0 else first.shape[1],
                args.image_height if args.image_height > 0 else first.shape[0])  # fmt: skip
        images = []
        for k, f in enumerate(files):
            images.append(visual.read_image(f, size))
            script_kit.progress(k + 1, len(files))
        save_image(Path(args.output), visual.tile(images, args.num_column).transpose(2, 0, 1))
        print(f"{len(files)} images tiled, {size[0]}x{size[1]} each", flush=True)

    script_kit.main(run, "Tile images")


if __name__ == "__main__":
    main()
