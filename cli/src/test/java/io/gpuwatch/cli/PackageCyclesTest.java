package io.gpuwatch.cli;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** No two packages of the project's main code import each other, directly or through others. */
class PackageCyclesTest {
    private static final Pattern PACKAGE = Pattern.compile("(?m)^package ([\\w.]+);");
    private static final Pattern IMPORT = Pattern.compile("(?m)^import (?:static )?(io\\.gpuwatch[\\w.]*?)\\.[A-Z]");

    @Test
    void theMainCodeHasNoPackageCycle() throws IOException {
        Map<String, Set<String>> imports = imports(Path.of("..").toAbsolutePath().normalize());
        assertFalse(imports.isEmpty(), "no sources found");
        assertEquals(List.of(), cycles(imports), "packages that import each other (directly or through others)");
    }

    @Test
    void theCheckFindsACycleThroughAThirdPackage() {
        Map<String, Set<String>> g = new TreeMap<>();
        g.put("a", Set.of("b"));
        g.put("b", Set.of("c"));
        g.put("c", Set.of("a", "d"));
        g.put("d", Set.of());
        assertEquals(List.of(new TreeSet<>(Set.of("a", "b", "c"))), cycles(g));
    }

    private static Map<String, Set<String>> imports(Path repo) throws IOException {
        Map<String, Set<String>> out = new TreeMap<>();
        try (Stream<Path> files = Files.walk(repo)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")
                    && p.toString().contains("/src/main/java/") && !p.toString().contains("/target/")).toList()) {
                String text = Files.readString(f);
                Matcher pm = PACKAGE.matcher(text);
                if (!pm.find()) {
                    continue;
                }
                String pkg = pm.group(1);
                Set<String> to = out.computeIfAbsent(pkg, k -> new TreeSet<>());
                Matcher im = IMPORT.matcher(text);
                while (im.find()) {
                    if (!im.group(1).equals(pkg)) {
                        to.add(im.group(1));
                    }
                }
            }
        }
        return out;
    }

    /** The strongly connected components of more than one package (Tarjan's algorithm). */
    private static List<Set<String>> cycles(Map<String, Set<String>> g) {
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new TreeSet<>();
        List<Set<String>> out = new ArrayList<>();
        for (String v : g.keySet()) {
            if (!index.containsKey(v)) {
                connect(v, g, index, low, stack, onStack, out);
            }
        }
        return out;
    }

    private static void connect(String v, Map<String, Set<String>> g, Map<String, Integer> index,
                                Map<String, Integer> low, Deque<String> stack, Set<String> onStack,
                                List<Set<String>> out) {
        index.put(v, index.size());
        low.put(v, index.get(v));
        stack.push(v);
        onStack.add(v);
        for (String w : g.getOrDefault(v, Set.of())) {
            if (!index.containsKey(w)) {
                connect(w, g, index, low, stack, onStack, out);
                low.put(v, Math.min(low.get(v), low.get(w)));
            } else if (onStack.contains(w)) {
                low.put(v, Math.min(low.get(v), index.get(w)));
            }
        }
        if (low.get(v).equals(index.get(v))) {
            Set<String> component = new TreeSet<>();
            String w;
            do {
                w = stack.pop();
                onStack.remove(w);
                component.add(w);
            } while (!w.equals(v));
            if (component.size() > 1) {
                out.add(component);
            }
        }
    }
}
