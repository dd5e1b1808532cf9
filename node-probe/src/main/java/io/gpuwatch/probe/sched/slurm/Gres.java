package io.gpuwatch.probe.sched.slurm;

import java.util.ArrayList;
import java.util.List;

/**
 * GPU counts out of Slurm's GRES and TRES strings, in the forms its JSON output uses: node {@code gres}
 * ({@code gpu:a100:8(S:0-1)}), {@code gres_used} ({@code gpu:a100:4(IDX:0-3)}), job {@code tres_per_node}
 * ({@code gres/gpu:a100:2}, older {@code gres:gpu:2}), TRES lists ({@code cpu=8,mem=64G,gres/gpu=4,gres/gpu:a100=4}).
 */
final class Gres {
    private Gres() {
    }

    /** GPUs in a node GRES string ({@code gres}, {@code gres_used}); 0 when none is listed. */
    static int nodeGpus(String gres) {
        if (gres == null || gres.isBlank() || gres.equals("N/A")) {
            return 0;
        }
        int n = 0;
        for (String item : topLevel(gres)) {
            int paren = item.indexOf('(');
            String spec = (paren < 0 ? item : item.substring(0, paren)).strip();
            String[] parts = spec.split(":");
            if (parts[0].equals("gpu")) {
                n += parts.length == 1 ? 1 : countOr(parts[parts.length - 1], 1);
            }
        }
        return n;
    }

    /**
     * GPUs in a job's TRES string ({@code tres_per_node}, {@code tres_per_job}, {@code tres_req_str}); an untyped
     * {@code gres/gpu=N} wins over the typed ones Slurm lists beside it, which are the same cards again.
     */
    static int tresGpus(String tres) {
        if (tres == null || tres.isBlank()) {
            return 0;
        }
        int untyped = -1;
        int typed = 0;
        for (String item : topLevel(tres)) {
            String t = item.strip();
            String rest;
            if (t.startsWith("gres/gpu")) {
                rest = t.substring("gres/gpu".length());
            } else if (t.startsWith("gres:gpu")) {
                rest = t.substring("gres:gpu".length());
            } else {
                continue;
            }
            if (!rest.isEmpty() && rest.charAt(0) != ':' && rest.charAt(0) != '=') {
                continue; // another GRES whose name starts with "gpu", e.g. gres/gpumem
            }
            int eq = rest.lastIndexOf('=');
            if (rest.isEmpty() || rest.startsWith("=")) {
                untyped = Math.max(untyped, rest.isEmpty() ? 1 : countOr(rest.substring(1), 0));
            } else if (eq >= 0) {
                typed += countOr(rest.substring(eq + 1), 0);
            } else {
                // ":a100:2", ":2" or ":a100" (one card of a type)
                String[] parts = rest.substring(1).split(":");
                int count = countOr(parts[parts.length - 1], -1);
                if (parts.length == 1 && count >= 0) {
                    untyped = Math.max(untyped, count);
                } else {
                    typed += count >= 0 ? count : 1;
                }
            }
        }
        return untyped >= 0 ? untyped : typed;
    }

    /** A count; Slurm writes large ones with a unit suffix only for memory, so digits only. */
    private static int countOr(String s, int otherwise) {
        String t = s.strip();
        if (t.isEmpty() || !t.chars().allMatch(Character::isDigit) || t.length() > 9) {
            return otherwise;
        }
        return Integer.parseInt(t);
    }

    /** Splits at commas outside parentheses: {@code gpu:a100:4(IDX:0-1,3,5),nvme:1} has two items. */
    private static List<String> topLevel(String s) {
        List<String> out = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth = Math.max(0, depth - 1);
            } else if (c == ',' && depth == 0) {
                out.add(s.substring(start, i));
                start = i + 1;
            }
        }
        out.add(s.substring(start));
        return out;
    }
}
