"""String Classification (NeuroCanvas built-in, NNC protocol): a CSV of strings (first column)
and labels to an NNC dataset of character index sequences, with the character index file.
Definitions: engine/plugins/create_dataset.py."""

import argparse


def main():
    parser = argparse.ArgumentParser(
        description="String Classification\n\nStrings (first column) and their labels to "
        "character index\nsequences: x__0..x__n, the length l, the labels.",
        formatter_class=argparse.RawTextHelpFormatter,
    )
    parser.add_argument(
        "-i",
        "--input",
        required=True,
        help="string classification dataset of string x and label y (csv)",
    )
    parser.add_argument(
        "-E",
        "--encoding",
        default="utf-8-sig",
        help="input text file encoding (text) default=utf-8-sig",
    )
    parser.add_argument(
        "-l",
        "--max-length",
        type=int,
        default=64,
        help="maximum string length in characters (int) default=64",
    )
    parser.add_argument(
        "-w",
        "--max-characters",
        type=int,
        default=256,
        help="maximum number of characters indexed (int) default=256",
    )
    parser.add_argument(
        "-m",
        "--min-occurrences",
        type=int,
        default=10,
        help="minimum number of occurrences of an indexed character (int) default=10",
    )
    parser.add_argument(
        "-n",
        "--normalize",
        action="store_true",
        help="normalize characters with unicodedata NFKC (bool) default=False",
    )
    parser.add_argument("-d", "--index-file-input", help="character index file input (csv)")
    parser.add_argument(
        "-e",
        "--index-file-output",
        default="index.csv",
        help="character index file output (csv) default=index.csv",
    )
    from engine.plugins import pre_kit

    pre_kit.add_output_arguments(parser)
    args = parser.parse_args()

    from engine.plugins import create_dataset as cd

    def run():
        folder = pre_kit.output_dir(args)
        source = cd.read_source(args.input, args.encoding)
        texts = [row[0] for row in source.rows]
        if args.index_file_input:
            chars = cd.read_index(args.index_file_input)
        else:
            chars = cd.vocabulary(
                texts, args.max_length, args.max_characters, args.min_occurrences, args.normalize
            )
        index = {ch: k for k, ch in enumerate(chars) if k >= 2}
        header = [f"# {source.header[0]}", *source.header[1:], "l"]
        header += [f"x__{k}" for k in range(args.max_length)]
        rows = []
        for row in source.rows:
            length, codes = cd.encode(row[0], index, args.max_length, args.normalize)
            rows.append([[row[0], *row[1:], length, *codes]])
        print(f"{len(chars)} characters indexed", flush=True)
        pre_kit.save_split(args, header, rows)
        if args.index_file_output:
            with open(folder / args.index_file_output, "w", newline="", encoding="utf-8") as f:
                cd.csv.writer(f, lineterminator="\n").writerows(enumerate(chars))

    pre_kit.main(run, "String Classification")


if __name__ == "__main__":
    main()
