"""Scatter plot of two columns of a table (NeuroCanvas built-in plugin, NNC protocol)."""

from engine.plugins import script_kit


def main():
    parser = script_kit.parser(
        "Scatter Plot\n\nA point per row at the values of two columns (a class output "
        "y'__0..y'__n: its predicted class), coloured by a third."
    )
    script_kit.add_input(parser)
    parser.add_argument(
        "-x", "--x", default="y'", help="column for the x axis (variable) default=y'"
    )
    parser.add_argument("-y", "--y", default="y", help="column for the y axis (variable) default=y")
    parser.add_argument(
        "-c", "--c", default="", help="column that colours the points, empty for none (variable)"
    )
    parser.add_argument(
        "-w", "--width", type=int, default=1920, help="graph width in pixels (int) default=1920"
    )
    parser.add_argument(
        "-e", "--height", type=int, default=1080, help="graph height in pixels (int) default=1080"
    )
    script_kit.add_output(parser, "scatter_plot.png")
    args = parser.parse_args()

    import numpy as np

    def run():
        header, rows = script_kit.read_table(args.input)
        xs = script_kit.numbers(script_kit.variable_values(header, rows, args.x, "--x"), args.x)
        ys = script_kit.numbers(script_kit.variable_values(header, rows, args.y, "--y"), args.y)
        colour = script_kit.variable_values(header, rows, args.c, "--c") if args.c else None
        if args.width < 16 or args.height < 16:
            raise ValueError(f"--width {args.width} --height {args.height}: at least 16 pixels")
        dpi = 100
        fig, ax = script_kit.figure(args.width / dpi, args.height / dpi)
        if colour is None:
            ax.scatter(xs, ys, s=12)
        else:
            for value in sorted(set(colour), key=lambda v: (len(v), v)):
                pick = np.array([c == value for c in colour])
                ax.scatter(xs[pick], ys[pick], s=12, label=f"{args.c} = {value}")
            ax.legend(fontsize="small", loc="best")
        ax.set_xlabel(args.x)
        ax.set_ylabel(args.y)
        ax.set_title(f"{args.y} against {args.x}")
        fig.savefig(args.output, dpi=dpi)  # exactly width x height pixels
        script_kit.write_csv(
            "scatter_plot.csv",
            [args.x, args.y, *([args.c] if colour else [])],
            [
                [f"{a:.8g}", f"{b:.8g}", *([colour[k]] if colour else [])]
                for k, (a, b) in enumerate(zip(xs, ys, strict=True))
            ],  # fmt: skip
        )

    script_kit.main(run, "Scatter plot")


if __name__ == "__main__":
    main()
