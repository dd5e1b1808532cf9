package io.gpuwatch.protocol.trace;

/** What a trace file's name says (protocol §8): its form, and the name it has without its trace suffixes. */
public final class TraceNames {
    private static final String[] SUFFIXES = {".gz", ".jsonl", ".trace", ".gwt"};

    private TraceNames() {
    }

    /** True when the name asks for the binary form: {@code .gwt}, or {@code .gwt.gz} to gzip it as well. */
    public static boolean binary(String fileName) {
        return fileName.endsWith(".gwt") || fileName.endsWith(".gwt.gz");
    }

    /** True when the name asks for gzip. */
    public static boolean gzip(String fileName) {
        return fileName.endsWith(".gz");
    }

    /**
     * The name less every trailing trace suffix ({@code .gz}, {@code .jsonl}, {@code .trace}, {@code .gwt}), which
     * files that belong to the trace, such as its labels, are named after; never empty.
     */
    public static String base(String fileName) {
        String name = fileName;
        boolean stripped = true;
        while (stripped) {
            stripped = false;
            for (String suffix : SUFFIXES) {
                if (name.endsWith(suffix) && name.length() > suffix.length()) {
                    name = name.substring(0, name.length() - suffix.length());
                    stripped = true;
                }
            }
        }
        return name;
    }
}
