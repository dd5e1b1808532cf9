package io.gpuwatch.gateway.reload;

import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.source.Diagnostic;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static io.gpuwatch.gateway.reload.LiveGateway.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Reloading a running gateway's rules: all or nothing, with alerts of surviving rules left as they were. */
@ExtendWith(VertxExtension.class)
class RuleReloaderTest {
    static final String HEAD = "group: t\nlayer: device\nseverity: ticket\nrules:\n";
    static final String HOT = "  - name: hot\n    when: tempC > 90\n";
    static final String WARM = "  - name: warm\n    when: tempC > 80\n";

    @TempDir
    Path dir;

    private void write(String file, String text) throws Exception {
        Files.createDirectories(dir.resolve(file).getParent());
        Files.writeString(dir.resolve(file), text);
    }

    @Test
    void aBrokenFileKeepsTheRunningRulesAndReportsEveryErrorWithItsPosition(Vertx vertx) throws Exception {
        write("a.yml", HEAD + HOT);
        LiveGateway live = LiveGateway.start(vertx, dir, Duration.ZERO);
        live.sample(95, 60);
        RuleSet before = live.gateway.rules();

        write("b.yml", "group: b\nlayer: device\nseverity: page\nrules:\n"
                + "  - name: evil\n    when: Runtime.getRuntime().exec('touch x')\n"
                + "  - name: typo\n    when: avg(gpuutil, 5m) > 1\n");
        // the same call GatewayCommand's SIGHUP handler makes
        ReloadStatus s = await(live.reloader().reload("SIGHUP"));

        assertFalse(s.ok());
        assertEquals("SIGHUP", s.trigger());
        assertEquals(1, s.rules(), "the rule that ran before still runs");
        assertEquals(List.of(dir.resolve("b.yml") + ":6:11: error: `Runtime` is not allowed: rule expressions "
                        + "cannot reach Java classes or reflection",
                dir.resolve("b.yml") + ":8:15: error: unknown metric `gpuutil` (did you mean `gpuUtil`?)"),
                s.diagnostics().stream().map(Diagnostic::toString).toList());
        assertSame(before, live.gateway.rules());
        assertSame(s, live.reloader().lastStatus());
        assertEquals(1, live.reloader().failures());

        live.sample(95, 95);
        assertEquals(List.of("hot GPU-1 FIRING", "hot GPU-2 FIRING"), live.notifications(),
                "the old rule fires after the failed reload, and GPU-1 is not paged twice");
    }

    @Test
    void aGoodReloadAddsARuleAndAFiringAlertOfASurvivingRuleStaysQuiet(Vertx vertx) throws Exception {
        write("a.yml", HEAD + HOT);
        LiveGateway live = LiveGateway.start(vertx, dir, Duration.ZERO);
        live.sample(95, 60);
        assertEquals(List.of("hot GPU-1 FIRING"), live.notifications());

        write("a.yml", HEAD + HOT + WARM);
        ReloadStatus s = await(live.reloader().reload("http"));
        assertTrue(s.ok(), s::text);
        assertEquals(2, s.rules());
        assertEquals(2, live.gateway.rules().rules().size());

        live.sample(95, 60);
        assertEquals(List.of("hot GPU-1 FIRING", "warm GPU-1 FIRING"), live.notifications());
        assertEquals(2, live.gateway.ledger().live().size());
    }

    @Test
    void startedAndReloadedRulesComeWithTheirTemplatesCompiled(Vertx vertx) throws Exception {
        String summary = "    summary: '@{node} at @{tempC} C, @{max(tempC, 1m)} at most'\n";
        write("a.yml", HEAD + HOT + summary);
        LiveGateway live = LiveGateway.start(vertx, dir, Duration.ZERO);
        // compiled as the gateway was built, before its event loop ran
        assertTrue(live.gateway.rules().rules().stream().allMatch(r -> r.renderingPrepared()),
                () -> live.gateway.rules().rules().toString());
        write("a.yml", HEAD + HOT + summary + WARM + summary);
        ReloadStatus s = await(live.reloader().reload("http"));
        assertTrue(s.ok(), s::text);
        // compiled on the reload's worker thread: the first page of `warm` does not compile on the event loop
        assertTrue(live.gateway.rules().rules().stream().allMatch(r -> r.renderingPrepared()),
                () -> live.gateway.rules().rules().toString());
    }

    @Test
    void aRemovedRulesAlertResolvesOnce(Vertx vertx) throws Exception {
        write("a.yml", HEAD + HOT + WARM);
        LiveGateway live = LiveGateway.start(vertx, dir, Duration.ZERO);
        live.sample(95, 60);

        write("a.yml", HEAD + WARM);
        assertTrue(await(live.reloader().reload("http")).ok());
        assertTrue(await(live.reloader().reload("http")).ok());
        live.sample(95, 60);
        live.sample(95, 60);

        assertEquals(List.of("hot GPU-1 FIRING", "warm GPU-1 FIRING", "hot GPU-1 RESOLVED"), live.notifications());
        assertEquals(List.of("warm"), live.gateway.ledger().live().stream().map(a -> a.rule()).toList());
    }

    @Test
    void aPollReloadsWhenARuleFileChangesAndOnlyThen(Vertx vertx) throws Exception {
        write("a.yml", HEAD + HOT);
        LiveGateway live = LiveGateway.start(vertx, dir, Duration.ZERO);
        RuleReloader reloader = live.reloader();
        assertFalse(await(reloader.poll()), "the first look only takes note");
        assertFalse(await(reloader.poll()));

        write("tests/a-test.yml", "not a rule file: tests folders hold rule tests");
        write(".hidden.yml", "ignored too");
        write("notes.txt", "and files that are not YAML");
        assertFalse(await(reloader.poll()));

        write("b.yml", "group: b\nlayer: device\nseverity: page\nrules:\n" + WARM);
        assertTrue(await(reloader.poll()));
        assertEquals("file change", reloader.lastStatus().trigger());
        assertEquals(2, live.gateway.rules().rules().size());
        assertFalse(await(reloader.poll()));

        Files.delete(dir.resolve("b.yml"));
        assertTrue(await(reloader.poll()));
        assertEquals(List.of("hot"), live.gateway.rules().rules().stream().map(r -> r.name()).toList());
    }

    @Test
    void aManualReloadCountsAsHavingSeenTheFiles(Vertx vertx) throws Exception {
        write("a.yml", HEAD + HOT);
        LiveGateway live = LiveGateway.start(vertx, dir, Duration.ZERO);
        assertFalse(await(live.reloader().poll()));
        write("a.yml", HEAD + HOT + WARM);
        assertTrue(await(live.reloader().reload("http")).ok());
        assertFalse(await(live.reloader().poll()), "the edit was already loaded");
    }

    @Test
    void theWatcherPicksUpAnEditOnItsOwn(Vertx vertx) throws Exception {
        write("a.yml", HEAD + HOT);
        LiveGateway live = LiveGateway.start(vertx, dir, Duration.ofMillis(20));
        write("a.yml", HEAD + HOT + WARM);
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!live.reloader().lastStatus().trigger().equals("file change") && System.nanoTime() < deadline) {
            // bounded wait for the watcher's own timer; the reload's content is checked below
            await(vertx.timer(10));
        }
        ReloadStatus s = live.reloader().lastStatus();
        assertEquals("file change", s.trigger(), "no reload within 10 s");
        assertTrue(s.ok(), s::text);
        assertEquals(2, live.gateway.rules().rules().size());
    }
}
