package io.gpuwatch.gateway.reload;

import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.source.Diagnostic;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Reloads the gateway's rules from their files, all or nothing: the files are read and compiled off the event
 * loop, and only a load without errors is handed to {@code apply} (which swaps it in on the loop); after a
 * failure the running rules stay and every diagnostic is logged and kept as {@link #lastStatus()}. Triggers
 * are {@link #reload} (HTTP, SIGHUP) and {@link #watch}, which polls the files' paths, sizes and modification
 * times. Reloads run one at a time, in the order asked for; state lives on {@code context}, so any thread may
 * call in.
 */
public final class RuleReloader {
    private static final Logger LOG = Logger.getLogger(RuleReloader.class.getName());

    private final Context context;
    private final RuleFiles files;
    private final Function<RuleSet, Future<Void>> apply;
    private final InstantSource clock;
    private volatile ReloadStatus lastStatus;
    private volatile long failures;
    private int running;
    private Future<ReloadStatus> tail = Future.succeededFuture();
    private Map<String, String> seen;
    private boolean polling;
    private long timer = -1;

    /** A reloader for rules already running ({@code runningRules} of them) that were loaded from {@code files}. */
    public RuleReloader(Context context, RuleFiles files, Function<RuleSet, Future<Void>> apply, InstantSource clock,
                        int runningRules) {
        this.context = context;
        this.files = files;
        this.apply = apply;
        this.clock = clock;
        this.running = runningRules;
        this.lastStatus = new ReloadStatus(clock.instant(), "startup", true, runningRules, List.of());
    }

    /** Loads the files again and, when they load without errors, swaps them in. Never fails: see the status. */
    public Future<ReloadStatus> reload(String trigger) {
        Promise<ReloadStatus> done = Promise.promise();
        context.runOnContext(v -> enqueue(trigger).onComplete(done));
        return done.future();
    }

    private Future<ReloadStatus> enqueue(String trigger) {
        Future<ReloadStatus> next = tail.transform(ignored -> attempt(trigger));
        tail = next;
        return next;
    }

    /** What one blocking pass read: the files' stamps, then the load, so a later edit is seen as a change. */
    private record Read(Map<String, String> stamps, RuleLoad load) {
    }

    private Future<ReloadStatus> attempt(String trigger) {
        return context.executeBlocking(() -> new Read(stamps(files.paths()), prepared(RuleSet.load(files.paths()))))
                .compose(read -> {
                    seen = read.stamps();
                    if (!read.load().ok()) {
                        return Future.succeededFuture(failed(trigger, read.load().diagnostics()));
                    }
                    RuleSet next = read.load().ruleSet();
                    return apply.apply(next).map(v -> succeeded(trigger, next, read.load().diagnostics()));
                })
                .recover(e -> Future.succeededFuture(failed(trigger, List.of(Diagnostic.error(where(), 0, 0,
                        "reload failed: " + (e.getMessage() == null ? e.toString() : e.getMessage()))))));
    }

    /** Templates compiled here, off the event loop, rather than at each rule's first page. */
    private static RuleLoad prepared(RuleLoad load) {
        if (load.ok()) {
            load.ruleSet().prepareRendering();
        }
        return load;
    }

    private String where() {
        return files.paths().stream().map(Path::toString).collect(Collectors.joining(","));
    }

    private ReloadStatus succeeded(String trigger, RuleSet next, List<Diagnostic> diagnostics) {
        running = next.rules().size();
        ReloadStatus s = new ReloadStatus(clock.instant(), trigger, true, running, diagnostics);
        lastStatus = s;
        LOG.info("rules reloaded (" + trigger + "): " + ReloadStatus.count(running) + indented(s));
        return s;
    }

    private ReloadStatus failed(String trigger, List<Diagnostic> diagnostics) {
        ReloadStatus s = new ReloadStatus(clock.instant(), trigger, false, running, diagnostics);
        lastStatus = s;
        failures++;
        LOG.warning("rule reload (" + trigger + ") failed; the " + ReloadStatus.count(running) + " loaded before keep running"
                + indented(s));
        return s;
    }

    private static String indented(ReloadStatus s) {
        return s.diagnostics().isEmpty() ? "" : ":\n  " + s.text().strip().replace("\n", "\n  ");
    }

    /**
     * Looks at the files once, off the event loop, and reloads when a rule file appeared, vanished or changed
     * size or modification time since the last look; the first look only takes note. True when it reloaded.
     */
    public Future<Boolean> poll() {
        Promise<Boolean> done = Promise.promise();
        context.runOnContext(v -> {
            if (polling) {
                done.complete(false);
                return;
            }
            polling = true;
            context.executeBlocking(() -> stamps(files.paths())).compose(now -> {
                if (seen == null || now.equals(seen)) {
                    seen = now;
                    return Future.succeededFuture(false);
                }
                seen = now;
                return enqueue("file change").map(s -> true);
            }).onComplete(ar -> {
                polling = false;
                done.handle(ar);
            });
        });
        return done.future();
    }

    /**
     * Polls every {@link RuleFiles#pollInterval()} from now on (nothing when it is zero). The future completes
     * once the first look has taken note of the files, so any later edit counts as a change.
     */
    public Future<Void> watch() {
        long ms = files.pollInterval().toMillis();
        if (ms <= 0) {
            return Future.succeededFuture();
        }
        Promise<Void> armed = Promise.promise();
        context.runOnContext(v -> poll().onComplete(ar -> {
            if (timer < 0) {
                timer = context.owner().setPeriodic(ms, id -> poll());
            }
            armed.complete();
        }));
        return armed.future();
    }

    /** Stops the file watcher. */
    public void stop() {
        context.runOnContext(v -> {
            if (timer >= 0) {
                context.owner().cancelTimer(timer);
                timer = -1;
            }
        });
    }

    /** The latest reload's outcome; at first, the startup load's. */
    public ReloadStatus lastStatus() {
        return lastStatus;
    }

    /** How many reloads failed since the gateway started. */
    public long failures() {
        return failures;
    }

    /**
     * Path → size and modification time of every file a load would read: the given files, and below the given
     * directories every {@code *.yml}/{@code *.yaml} outside hidden and {@code tests} folders.
     */
    public static Map<String, String> stamps(List<Path> paths) {
        Map<String, String> out = new TreeMap<>();
        for (Path p : paths) {
            if (Files.isDirectory(p)) {
                try (Stream<Path> walk = Files.walk(p)) {
                    for (Path f : walk.filter(f -> isRuleFile(p, f)).toList()) {
                        out.put(f.toString(), stamp(f));
                    }
                } catch (IOException | UncheckedIOException e) {
                    out.put(p.toString(), "unlisted: " + e.getMessage());
                }
            } else {
                out.put(p.toString(), stamp(p));
            }
        }
        return out;
    }

    private static boolean isRuleFile(Path root, Path f) {
        Path rel = root.relativize(f);
        List<String> parts = new ArrayList<>();
        rel.forEach(part -> parts.add(part.toString()));
        for (int i = 0; i < parts.size(); i++) {
            if (parts.get(i).startsWith(".") || i < parts.size() - 1 && parts.get(i).equals("tests")) {
                return false;
            }
        }
        String name = f.getFileName().toString();
        return (name.endsWith(".yml") || name.endsWith(".yaml")) && Files.isRegularFile(f);
    }

    private static String stamp(Path f) {
        try {
            BasicFileAttributes a = Files.readAttributes(f, BasicFileAttributes.class);
            // the file key (inode) catches an editor's save-by-rename that keeps size and coarse mtime
            return a.size() + "@" + a.lastModifiedTime() + "#" + a.fileKey();
        } catch (IOException e) {
            return "unreadable: " + e.getClass().getSimpleName();
        }
    }
}
