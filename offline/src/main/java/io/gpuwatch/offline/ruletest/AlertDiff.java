package io.gpuwatch.offline.ruletest;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Compares the alerts of one rule firing at a check's time with the expected ones and, when they differ, writes
 * a diff: {@code -} lines for what was expected and not found, {@code +} for what fired unexpected, plain lines
 * for alerts that match. Labels are printed sorted, texts under their alert.
 */
final class AlertDiff {
    /** An alert that fires: all of its labels (the scope's attribution included) and its rendered texts. */
    record Firing(Map<String, String> labels, String summary, String description) {
        Firing {
            labels = new TreeMap<>(labels);
        }
    }

    private AlertDiff() {
    }

    /** Null when {@code got} is exactly {@code expected}; else the diff lines, without the heading. */
    static List<String> diff(List<TestFile.ExpectedAlert> expected, List<Firing> got) {
        int e = expected.size();
        int g = got.size();
        boolean[][] whole = new boolean[e][g];
        boolean[][] byLabels = new boolean[e][g];
        for (int i = 0; i < e; i++) {
            for (int j = 0; j < g; j++) {
                byLabels[i][j] = labelsMatch(expected.get(i), got.get(j));
                whole[i][j] = byLabels[i][j] && textsMatch(expected.get(i), got.get(j));
            }
        }
        int[] pair = match(whole, new boolean[g]);
        if (e == g && Arrays.stream(pair).allMatch(j -> j >= 0)) {
            return null;
        }
        // expected alerts that match nothing whole are paired by labels among what is left, to show text changes
        boolean[] taken = new boolean[g];
        for (int j : pair) {
            if (j >= 0) {
                taken[j] = true;
            }
        }
        boolean[][] rest = new boolean[e][g];
        for (int i = 0; i < e; i++) {
            for (int j = 0; j < g; j++) {
                rest[i][j] = pair[i] < 0 && !taken[j] && byLabels[i][j];
            }
        }
        int[] second = match(rest, taken.clone());
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < e; i++) {
            TestFile.ExpectedAlert x = expected.get(i);
            if (pair[i] >= 0) {
                lines.add("  " + labels(x.labels()));
            } else if (second[i] >= 0) {
                Firing f = got.get(second[i]);
                taken[second[i]] = true;
                lines.add("  " + labels(x.labels()));
                if (x.summary() != null && !x.summary().equals(f.summary())) {
                    lines.add("-     summary: " + x.summary());
                    lines.add("+     summary: " + f.summary());
                }
                if (x.description() != null && !x.description().equals(f.description())) {
                    lines.add("-     description: " + x.description());
                    lines.add("+     description: " + f.description());
                }
            } else {
                lines.add("- " + labels(x.labels()));
                if (x.summary() != null) {
                    lines.add("-     summary: " + x.summary());
                }
                if (x.description() != null) {
                    lines.add("-     description: " + x.description());
                }
            }
        }
        List<Firing> extra = new ArrayList<>();
        for (int j = 0; j < g; j++) {
            if (!taken[j]) {
                extra.add(got.get(j));
            }
        }
        extra.sort(Comparator.comparing(f -> labels(f.labels())));
        for (Firing f : extra) {
            lines.add("+ " + labels(f.labels()));
            lines.add("+     summary: " + f.summary());
        }
        return lines;
    }

    /** {@code {a="x", b="y"}}, sorted by name. */
    static String labels(Map<String, String> labels) {
        return new TreeMap<>(labels).entrySet().stream().map(en -> en.getKey() + "=\"" + en.getValue() + "\"")
                .collect(Collectors.joining(", ", "{", "}"));
    }

    private static boolean labelsMatch(TestFile.ExpectedAlert x, Firing f) {
        for (Map.Entry<String, String> en : x.labels().entrySet()) {
            if (!en.getValue().equals(f.labels().get(en.getKey()))) {
                return false;
            }
        }
        return true;
    }

    private static boolean textsMatch(TestFile.ExpectedAlert x, Firing f) {
        return (x.summary() == null || x.summary().equals(f.summary()))
                && (x.description() == null || x.description().equals(f.description()));
    }

    /**
     * A maximum matching of expected (rows) to got (columns) over the allowed pairs, by augmenting paths;
     * {@code taken} columns are not available. Returns the column of each row, -1 when unmatched.
     */
    private static int[] match(boolean[][] ok, boolean[] taken) {
        int rows = ok.length;
        int cols = taken.length;
        int[] ofCol = new int[cols];
        Arrays.fill(ofCol, -1);
        for (int i = 0; i < rows; i++) {
            augment(i, ok, ofCol, new boolean[cols], taken);
        }
        int[] ofRow = new int[rows];
        Arrays.fill(ofRow, -1);
        for (int j = 0; j < cols; j++) {
            if (ofCol[j] >= 0) {
                ofRow[ofCol[j]] = j;
            }
        }
        return ofRow;
    }

    private static boolean augment(int i, boolean[][] ok, int[] ofCol, boolean[] seen, boolean[] taken) {
        for (int j = 0; j < ofCol.length; j++) {
            if (ok[i][j] && !taken[j] && !seen[j]) {
                seen[j] = true;
                if (ofCol[j] < 0 || augment(ofCol[j], ok, ofCol, seen, taken)) {
                    ofCol[j] = i;
                    return true;
                }
            }
        }
        return false;
    }

    /** The diff of notification counts, or null when they agree. */
    static List<String> counts(TestFile.ExpectedNotifications x, int firing, int resolved) {
        if ((x.firing() == null || x.firing() == firing) && (x.resolved() == null || x.resolved() == resolved)) {
            return null;
        }
        List<String> want = new ArrayList<>();
        List<String> have = new ArrayList<>();
        if (x.firing() != null) {
            want.add("firing: " + x.firing());
            have.add("firing: " + firing);
        }
        if (x.resolved() != null) {
            want.add("resolved: " + x.resolved());
            have.add("resolved: " + resolved);
        }
        return List.of("- " + String.join(", ", want), "+ " + String.join(", ", have));
    }
}
