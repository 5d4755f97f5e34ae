package dev.byodt.cli.report;

/** The error of one intermediate tensor over a data set. */
public record LayerFigures(String tensor, ErrorFigures errors) {}
