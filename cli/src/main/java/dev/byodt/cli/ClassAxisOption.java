package dev.byodt.cli;

import picocli.CommandLine.Option;

/** --class-axis N: the axis top-1 is taken over in outputs of rank 3 or more, shared by run and sweep. */
final class ClassAxisOption {
    @Option(names = "--class-axis", paramLabel = "N",
        description = "For outputs of rank 3 or more (a language model's [batch, sequence, vocabulary], a segmentation map's "
            + "[batch, classes, height, width]): the axis holding the classes; top-1 and agreement are counted at every "
            + "position of the other axes. Negative counts from the end. Default: the last axis.")
    Integer classAxis;
}
