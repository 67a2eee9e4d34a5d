"""Inference on new files with the job's trained network (NeuroCanvas built-in, NNC protocol)."""

from engine.plugins import script_kit


def main():
    parser = script_kit.parser(
        "Inference\n\nRun the trained network on new data: one file, a folder of files or a "
        "dataset CSV; a table like the output result, a row per sample (image outputs as "
        "pictures)."
    )
    script_kit.add_model(parser)
    parser.add_argument(
        "-d",
        "--input_data",
        required=True,
        help="path to an input file, a folder of files or a dataset csv (file)",
    )
    script_kit.add_output(parser, "inference.csv")
    args = parser.parse_args()

    from pathlib import Path

    import numpy as np

    def run():
        from engine.data.writers import save_image
        from engine.plugins import visual
        from engine.runtime.evaluator import picture

        model = script_kit.load_model(args.model)
        header, rows = visual.inference_inputs(args.input_data, model.input)
        x = []
        for k, row in enumerate(rows):
            x.append(model.row_input(header, row))
            script_kit.progress(k + 1, 2 * len(rows))
        names = model.outputs()
        values = model.forward(np.stack(x), [f"output:{n}" for n in names])
        columns, cells = [], [[] for _ in rows]
        for name, value in zip(names, values, strict=True):
            sample = value.shape[1:]
            if len(sample) == 3 and sample[0] in (1, 3):  # an image output: a picture per row
                columns.append(f"{name}:image")
                folder = Path("outputs")
                folder.mkdir(exist_ok=True)
                for k, v in enumerate(value):
                    path = folder / f"{k:05d}_{name.replace(chr(39), '_')}.png"
                    save_image(path, picture(v))
                    cells[k].append(path.as_posix())
                continue
            flat = value.reshape(len(value), -1)
            columns += (
                [name] if flat.shape[1] == 1 else [f"{name}__{j}" for j in range(flat.shape[1])]
            )
            for k, line in enumerate(flat):
                cells[k] += [f"{v:.8g}" for v in line]
        script_kit.progress(2 * len(rows), 2 * len(rows))
        script_kit.write_csv(
            args.output, [*header, *columns], [[*r, *c] for r, c in zip(rows, cells, strict=True)]
        )

    script_kit.main(run, "Inference")


if __name__ == "__main__":
    main()
