"""The command line the model export scripts share: OUT_DIR [NAME...], each NAME.onnx exported only when missing."""

import argparse
import os


def export_missing(description, kind, names, export):
    """Parses OUT_DIR [NAME...] (NAME one of `names`, default all), calls export(name, file) for each NAME.onnx
    missing from OUT_DIR (into a temporary file, renamed when written whole) and prints the path of each."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("out_dir")
    parser.add_argument("names", nargs="*", metavar="NAME", help="some of " + ", ".join(names) + " (default: all)")
    args = parser.parse_args()
    unknown = [n for n in args.names if n not in names]
    if unknown:
        parser.error(f"unknown {kind} {unknown[0]}; choose among " + ", ".join(names))
    os.makedirs(args.out_dir, exist_ok=True)
    for name in args.names or names:
        path = os.path.join(args.out_dir, name + ".onnx")
        if not os.path.exists(path):
            tmp = path + ".tmp"
            export(name, tmp)
            os.replace(tmp, path)
        print(path)
