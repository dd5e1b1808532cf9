package io.gpuwatch.gateway.ledger;

import io.gpuwatch.gateway.alert.AlertLinks;
import io.gpuwatch.gateway.store.AlertTransition;
import io.gpuwatch.gateway.store.AsyncStore;
import io.gpuwatch.gateway.store.Backoff;
import io.gpuwatch.notify.Notification;
import io.gpuwatch.rules.Rule;
import io.gpuwatch.rules.RuleLoad;
import io.gpuwatch.rules.RuleSet;
import io.gpuwatch.rules.eval.AlertState;
import io.gpuwatch.rules.eval.Transition;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@ExtendWith(VertxExtension.class)
class PersistentLedgerTest {
    private static final long T0 = 1_764_700_000_000L;
    private static final Rule HOT = rule();

    @TempDir
    Path dir;

    private static Rule rule() {
        RuleLoad load = RuleSet.parse("ledger.yml", """
                group: ledger
                layer: device
                scope: card
                rules:
                  - name: too-hot
                    severity: page
                    when: tempC > 85
                    summary: "hot"
                """);
        assertTrue(load.ok(), load.diagnostics().toString());
        return load.ruleSet().rules().get(0);
    }

    private static Transition t(String uuid, AlertState to, long at) {
        return new Transition(HOT, Map.of("alertname", "too-hot", "severity", "page", "node", "n1", "uuid", uuid),
                to == AlertState.FIRING ? AlertState.PENDING : AlertState.FIRING, to, at, T0, "hot", "");
    }

    private Future<AsyncStore> open(Vertx vertx) {
        return AsyncStore.open(vertx, dir.resolve("gateway"), () -> Instant.ofEpochMilli(T0), Backoff.standard());
    }

    private static List<String> names(List<Notification> ns) {
        return ns.stream().map(n -> n.labels().get("uuid") + ":" + n.status()).toList();
    }

    @Test
    void transitionsAreStoredBeforeTheyAreNotifiedAndSurviveARestart(Vertx vertx, VertxTestContext tc) {
        List<Notification> first = new ArrayList<>();
        List<Notification> second = new ArrayList<>();
        List<Notification> recovered = new ArrayList<>();
        vertx.getOrCreateContext().runOnContext(go -> open(vertx)
                .compose(store -> PersistentLedger.open(store, 100, AlertLinks.of("http://gw")).compose(ledger -> {
                    ledger.apply(t("GPU-1", AlertState.FIRING, T0 + 1000), first::add);
                    ledger.apply(t("GPU-2", AlertState.FIRING, T0 + 2000), first::add);
                    ledger.apply(t("GPU-1", AlertState.RESOLVED, T0 + 3000), first::add);
                    tc.verify(() -> {
                        assertEquals(List.of(), first, "nothing is notified before its write committed");
                        assertEquals(List.of("GPU-2"), ledger.live().stream()
                                .map(a -> a.labels().get("uuid")).toList(), "the ledger itself answers at once");
                    });
                    return ledger.settled();
                }).compose(v -> store.close()))
                .compose(v -> open(vertx))
                .compose(store -> PersistentLedger.open(store, 100, AlertLinks.of("http://gw")).compose(ledger -> {
                    tc.verify(() -> {
                        assertEquals(List.of("GPU-1:FIRING", "GPU-2:FIRING", "GPU-1:RESOLVED"), names(first));
                        assertEquals(List.of("GPU-2"), ledger.live().stream()
                                .map(a -> a.labels().get("uuid")).toList(), "the live alert is back");
                        assertEquals(List.of("GPU-1"), ledger.history().stream()
                                .map(a -> a.labels().get("uuid")).toList(), "so is the ended one");
                        assertEquals(T0 + 2000, ledger.live().get(0).firedAt());
                    });
                    String fp = ledger.live().get(0).fingerprint();
                    List<Notification> ended = new ArrayList<>();
                    ledger.recover((live, gone) -> {
                        recovered.addAll(live);
                        ended.addAll(gone);
                    });
                    // the evaluator starts afresh after a restart and reports the still-hot card firing again
                    ledger.apply(t("GPU-2", AlertState.FIRING, T0 + 60_000), second::add);
                    ledger.apply(t("GPU-2", AlertState.RESOLVED, T0 + 70_000), second::add);
                    return ledger.settled().compose(v -> store.run(s -> s.alerts().history(fp)))
                            .compose(history -> {
                                tc.verify(() -> {
                                    assertEquals(List.of("GPU-2:FIRING"), names(recovered));
                                    assertEquals(List.of("GPU-1:RESOLVED"), names(ended),
                                            "the ended one, for a resolve its receiver may not have heard");
                                    assertEquals(List.of("GPU-2:RESOLVED"), names(second), "no second page");
                                    assertEquals(List.of(AlertState.FIRING, AlertState.RESOLVED),
                                            history.stream().map(AlertTransition::to).toList());
                                    assertEquals(Instant.ofEpochMilli(T0 + 70_000), history.get(1).at());
                                    assertTrue(ledger.live().isEmpty());
                                });
                                return store.run(s -> s.alerts().live());
                            })
                            .eventually(store::close);
                }))
                .onComplete(tc.succeeding(live -> tc.verify(() -> {
                    assertEquals(List.of(), live, "the resolution is stored too");
                    tc.completeNow();
                }))));
    }
}
