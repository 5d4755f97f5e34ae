package dev.byodt.cli.report;

/**
 * What a comparison was run on, shared by every datatype in a report, so a result can be reproduced.
 *
 * @param model        the model file as given
 * @param modelSha256  SHA-256 of the model file's bytes, hex ({@link ModelHash})
 * @param target       the target triple or name the datatypes ran on (with --multiply-add when not the default)
 * @param multiplyAdd  --multiply-add, how float32 multiply-adds rounded: "separate" or "fused"
 * @param byodtVersion byodt's version
 * @param data         the data source's description, including its scaling and normalization
 * @param reference    where the float32 baseline came from ("byodt float32" or "onnxruntime float32 (graph optimizations off)")
 */
public record RunSetup(String model, String modelSha256, String target, String multiplyAdd, String byodtVersion, String data, String reference) {}
