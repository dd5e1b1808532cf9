package io.gpuwatch.gateway.store;

import io.gpuwatch.gateway.alert.Alert;
import io.gpuwatch.gateway.silence.Silence;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Kills a real writer process with SIGKILL at a random point of its write loop, twice (the second run opens
 * what the first left), and checks that everything it reported committed survived whole.
 */
class StoreCrashTest {
    private static final String EOF = "";

    @TempDir
    Path dir;

    /** outbox id by transaction number, and the outbox ids delivered, as the children reported them. */
    private final Map<Long, Long> queued = new HashMap<>();
    private final Set<Long> sent = new HashSet<>();

    @Test
    void everythingReportedCommittedSurvivesKillDashNine() throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        Path file = dir.resolve("gateway.mv.db");
        String why = "seed " + seed;

        killAfter(file, 0, 10 + random.nextInt(80), why, () -> {
            StoreException e = assertThrows(StoreException.class,
                    () -> Store.open(file, Instant::now, Backoff.standard()), "a second gateway on the same file");
            assertTrue(e.getMessage().contains("in use by another process"), e.getMessage());
        });
        killAfter(file, 1_000_000, 10 + random.nextInt(80), why, () -> { });

        try (Store store = Store.open(file, () -> Instant.now().plus(Duration.ofDays(1)), Backoff.standard())) {
            for (Map.Entry<Long, Long> c : queued.entrySet()) {
                long n = c.getKey();
                Alert a = store.alerts().get(CrashChild.fingerprint(n)).orElse(null);
                assertNotNull(a, "alert of committed transaction " + n + " is missing; " + why);
                assertEquals(CrashChild.alert(n, a.firedAt()), a, why);
                OutboxEntry row = store.outbox().get(c.getValue()).orElse(null);
                assertNotNull(row, "outbox row of committed transaction " + n + " is missing; " + why);
                assertEquals(CrashChild.payload(n), row.payload(), why);
                assertEquals(CrashChild.fingerprint(n), row.key(), why);
                Silence s = store.silences().get("s-" + n).orElse(null);
                assertNotNull(s, "silence of committed transaction " + n + " is missing; " + why);
                assertEquals(CrashChild.silence(n, s.startsAt()), s, why);
                assertEquals("ack " + n, store.acks().latest(CrashChild.fingerprint(n)).orElseThrow().comment(), why);
            }
            for (long id : sent) {
                OutboxEntry row = store.outbox().get(id).orElseThrow();
                assertEquals(OutboxEntry.State.SENT, row.state(), "delivered row " + id + "; " + why);
                assertTrue(store.notificationLog().last("pagerduty", row.key()).isPresent(),
                        "delivery of row " + id + " is not in the notification log; " + why);
            }
            // each transaction wrote one of each, so equal counts mean no transaction survived in part
            long alerts = store.alerts().live().size();
            long rows = store.outbox().count(OutboxEntry.State.PENDING) + store.outbox().count(OutboxEntry.State.SENT);
            assertTrue(alerts >= queued.size(), why);
            assertEquals(alerts, rows, "outbox rows vs alerts; " + why);
            assertEquals(alerts, store.silences().all().size(), "silences vs alerts; " + why);

            // every undelivered row is claimable again, the in-flight ones included; no delivered one comes back
            List<OutboxEntry> again = store.outbox().claim(100_000, Duration.ofMinutes(1));
            assertEquals(store.outbox().count(OutboxEntry.State.PENDING), again.size(), why);
            for (OutboxEntry e : again) {
                assertFalse(sent.contains(e.id()), "delivered row " + e.id() + " offered again; " + why);
                assertTrue(store.notificationLog().last("pagerduty", e.key()).isEmpty(), why);
            }
        }
    }

    /**
     * Runs a child from {@code start}; once it reported {@code commits} commits, runs {@code whileAlive} and
     * SIGKILLs it, then collects what it reported.
     */
    private void killAfter(Path file, long start, int commits, String why, Runnable whileAlive) throws Exception {
        Path err = dir.resolve("child-" + start + ".err");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                // C1 only: the child starts faster, and what it runs is not what is under test
                "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), CrashChild.class.getName(),
                file.toString(), Long.toString(start))
                .redirectError(err.toFile())
                .start();
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    lines.add(line);
                }
            } catch (IOException e) {
                lines.add("reader failed: " + e);
            }
            lines.add(EOF);
        });
        reader.setDaemon(true);
        reader.start();
        List<String> got = new ArrayList<>();
        try {
            while (got.size() < commits) {
                String line = lines.poll(15, TimeUnit.SECONDS);
                if (line == null || line.equals(EOF)) {
                    fail("the child stopped after " + got.size() + " commits; its stderr: " + Files.readString(err));
                }
                got.add(line);
            }
            whileAlive.run();
        } finally {
            // SIGKILL through the handle: Process.destroyForcibly would also close our end of the pipe and drop
            // lines the child printed (so committed) just before it died
            p.toHandle().destroyForcibly();
            assertTrue(p.waitFor(15, TimeUnit.SECONDS), "the child did not die");
        }
        // lines it printed before it died are commits too
        for (String line; !(line = lines.poll(15, TimeUnit.SECONDS)).equals(EOF); ) {
            got.add(line);
        }
        assertEquals(137, p.exitValue(), "killed by SIGKILL; " + why);
        for (String line : got) {
            String[] f = line.split(" ");
            assertEquals("committed", f[0], "unexpected child output `" + line + "`; " + why);
            queued.put(Long.parseLong(f[1]), Long.parseLong(f[2]));
            long s = Long.parseLong(f[3]);
            if (s >= 0) {
                sent.add(s);
            }
        }
    }
}
