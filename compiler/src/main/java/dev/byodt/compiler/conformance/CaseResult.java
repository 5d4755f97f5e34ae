package dev.byodt.compiler.conformance;

/** The outcome of one ONNX test case: passed, not compilable by byodt (and why), or wrong. */
public record CaseResult(String name, Outcome outcome, String detail) {
    public enum Outcome { PASSED, UNSUPPORTED, FAILED }
}
