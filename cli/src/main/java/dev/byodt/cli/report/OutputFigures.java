package dev.byodt.cli.report;

/** The figures of one model output: top-1 results and element-wise error against the reference. */
public record OutputFigures(String output, Top1Figures top1, ErrorFigures errors) {}
