"""t-SNE of a variable over the output table's rows (NeuroCanvas built-in, NNC protocol)."""

from engine.plugins import script_kit


def main():
    parser = script_kit.parser(
        "t-SNE\n\nEmbed a variable of every row in 2 (or more) dimensions with "
        "scikit-learn's t-SNE: a column of the table (x: its files) or a layer or output of the "
        "network (Affine) computed from the row's input."
    )
    script_kit.add_model(parser)
    script_kit.add_input(parser)
    parser.add_argument(
        "-v", "--variable", default="x", help="variable to embed (variable) default=x"
    )
    parser.add_argument(
        "-c",
        "--color_variable",
        default="y",
        help="column that colours the plot (variable) default=y",
    )
    parser.add_argument(
        "-d", "--dim", type=int, default=2, help="dimension of the embedded space (int) default=2"
    )
    parser.add_argument(
        "-p", "--perplexity", type=float, default=30, help="t-SNE perplexity (float) default=30"
    )
    script_kit.add_seed(parser)
    script_kit.add_output(parser, "tsne.csv")
    args = parser.parse_args()

    import numpy as np

    def features(header, rows):
        names = [h.split(":")[0] for h in header]
        if args.variable in names and not header[names.index(args.variable)].endswith(":image"):
            cells = script_kit.column(header, rows, args.variable, "--variable")
            try:
                return np.array([[float(c)] for c in cells])
            except ValueError:
                pass
        model = script_kit.load_model(args.model)
        if args.variable == model.input:
            inputs = np.stack([model.row_input(header, r) for r in rows])
            return inputs.reshape(len(rows), -1)
        key = model.variable(args.variable, "--variable")
        inputs = np.stack([model.row_input(header, r) for r in rows])
        (value,) = model.forward(inputs, [key])
        return value.reshape(len(rows), -1)

    def run():
        from sklearn.manifold import TSNE

        header, rows = script_kit.read_table(args.input)
        x = features(header, rows)
        script_kit.progress(1, 2)
        perplexity = min(args.perplexity, max(1.0, (len(rows) - 1) / 3))
        embedded = TSNE(
            n_components=args.dim, perplexity=perplexity, init="pca", random_state=args.seed
        ).fit_transform(x)
        script_kit.progress(2, 2)
        colour = script_kit.column(header, rows, args.color_variable, "--color_variable")
        keep = [h for h in header if h.split(":")[0] in (args.color_variable,)]
        first = header[0]
        out = [
            [r[0], c, *[f"{v:.6f}" for v in e]]
            for r, c, e in zip(rows, colour, embedded, strict=True)
        ]
        script_kit.write_csv(
            args.output,
            [
                first,
                keep[0] if keep else args.color_variable,
                *[f"tsne__{k}" for k in range(args.dim)],
            ],
            out,
        )
        fig, ax = script_kit.figure()
        values = np.array(
            [float(c) if c.replace(".", "", 1).lstrip("-").isdigit() else 0 for c in colour]
        )
        points = ax.scatter(embedded[:, 0], embedded[:, 1 % args.dim], c=values, cmap="tab10", s=10)
        fig.colorbar(points, ax=ax, label=args.color_variable)
        ax.set_title(f"t-SNE of {args.variable}")
        fig.savefig("tsne.png", dpi=100, bbox_inches="tight")

    script_kit.main(run, "t-SNE")


if __name__ == "__main__":
    main()
