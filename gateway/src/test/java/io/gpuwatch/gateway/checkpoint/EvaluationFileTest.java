package io.gpuwatch.gateway.checkpoint;

import io.gpuwatch.gateway.state.CardImage;
import io.gpuwatch.gateway.state.NodeImage;
import io.gpuwatch.gateway.state.ScopeImage;
import io.gpuwatch.gateway.window.EventLog;
import io.gpuwatch.gateway.window.MetricWindow;
import io.gpuwatch.gateway.window.WindowShape;
import io.gpuwatch.protocol.CardInfo;
import io.gpuwatch.protocol.Hello;
import io.gpuwatch.rules.eval.AlertImage;
import io.gpuwatch.rules.eval.AlertState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The checkpoint's text: what goes in comes back, and a damaged line costs that line, named with file:line. */
class EvaluationFileTest {
    private static final long T0 = 1_764_700_000_000L;

    @TempDir
    Path dir;

    private static Evaluation sample() {
        MetricWindow w = new MetricWindow(WindowShape.forWindow(600_000), true);
        for (int s = 0; s < 400; s++) {
            w.append(T0 + s * 1000L, s % 7 == 0 ? Double.NaN : 40 + s % 13);
        }
        CardImage card = new CardImage("GPU-1", T0 + 399_000, "train-7", "ana", "ads",
                List.of(new EventLog.Entry(T0 + 5_000, "xid", 79)),
                List.of(new CardImage.Window("tempC", 600_000, true, w.image())));
        Hello hello = new Hello(1, "node-1", "boot-1", "probe", "570.1", "12.570", Map.of("rack", "r1"),
                List.of(new CardInfo("GPU-1", 0, "H100", null, null, null, null, null)));
        NodeImage node = new NodeImage("node-1", hello, T0 + 399_500, List.of("GPU-9"),
                List.of(new EventLog.Entry(T0 + 5_000, "xid", 79)), List.of(card), 399, 5);
        NodeImage bare = new NodeImage("node-2", null, T0, List.of(), List.of(), List.of(), 0, 0);
        AlertImage pending = new AlertImage("held-hot", "card/node-1/GPU-1", AlertState.PENDING, T0 + 1_000, -1,
                Map.of("alertname", "held-hot", "node", "node-1", "uuid", "GPU-1"), "hot", "");
        AlertImage firing = new AlertImage("node-silent", "node/node-2", AlertState.FIRING, T0 + 31_000, T0 + 50_000,
                null, null, null);
        List<ScopeImage> scopes = List.of(
                new ScopeImage(ScopeImage.Kind.TASK, "train-7", null, "ana", "ads", "gpu-a",
                        List.of(new CardImage.Window("tokensPerSec", 600_000, true, w.image()))),
                new ScopeImage(ScopeImage.Kind.REPLICA, "train-7", "node-1", null, null, null, List.of()),
                new ScopeImage(ScopeImage.Kind.QUEUE, "gpu-a", null, null, null, null, List.of()));
        return new Evaluation(T0 + 400_000, List.of(node, bare), List.of(pending, firing), scopes);
    }

    @Test
    void whatIsWrittenIsReadBack() throws Exception {
        Path file = dir.resolve(EvaluationFile.FILE_NAME);
        Evaluation e = sample();
        EvaluationFile.write(file, e);
        EvaluationFile.Loaded loaded = EvaluationFile.read(file);
        assertEquals(List.of(), loaded.problems());
        Evaluation back = loaded.evaluation();
        assertEquals(e.at(), back.at());
        assertEquals(e.alerts(), back.alerts());
        assertEquals(e.scopes().stream().map(s -> List.of(s.kind(), s.name(), String.valueOf(s.node()),
                        String.valueOf(s.owner()), String.valueOf(s.business()), String.valueOf(s.queue()),
                        s.windows().size())).toList(),
                back.scopes().stream().map(s -> List.of(s.kind(), s.name(), String.valueOf(s.node()),
                        String.valueOf(s.owner()), String.valueOf(s.business()), String.valueOf(s.queue()),
                        s.windows().size())).toList(), "tasks, replicas and queues, in order");
        assertTrue(Arrays.equals(e.scopes().get(0).windows().get(0).image().values(),
                back.scopes().get(0).windows().get(0).image().values()), "a task's window, bit for bit");
        assertEquals(2, back.nodes().size());
        NodeImage n = back.nodes().get(0);
        assertEquals(e.nodes().get(0).hello(), n.hello());
        assertEquals(e.nodes().get(0).lost(), n.lost());
        assertEquals(e.nodes().get(0).events(), n.events());
        assertEquals(399, n.heldSeq(), "how far into the stream the windows go");
        assertEquals(5, n.eventSeq());
        CardImage c = n.cards().get(0);
        CardImage was = e.nodes().get(0).cards().get(0);
        assertEquals(List.of(was.uuid(), was.task(), was.owner(), was.business(), was.lastSampleAt()),
                List.of(c.uuid(), c.task(), c.owner(), c.business(), c.lastSampleAt()));
        MetricWindow.Image wi = was.windows().get(0).image();
        MetricWindow.Image ci = c.windows().get(0).image();
        assertTrue(Arrays.equals(wi.values(), ci.values()), "NaN slots too, bit for bit");
        assertArrayEquals(wi.counts(), ci.counts());
        assertEquals(List.of(wi.newestSlot(), wi.newestBucket(), wi.rolledSlot(), wi.lastMoveSlot(),
                wi.lastMoveBucket()), List.of(ci.newestSlot(), ci.newestBucket(), ci.rolledSlot(), ci.lastMoveSlot(),
                ci.lastMoveBucket()));
        assertEquals(Float.floatToRawIntBits(wi.rolledValue()), Float.floatToRawIntBits(ci.rolledValue()));

        MetricWindow restored = new MetricWindow(WindowShape.forWindow(600_000), true);
        assertTrue(restored.restore(ci));
        MetricWindow original = new MetricWindow(WindowShape.forWindow(600_000), true);
        original.restore(wi);
        long now = T0 + 399_000;
        assertEquals(original.at(now).avg(600_000), restored.at(now).avg(600_000));
        assertEquals(original.at(now).delta(600_000), restored.at(now).delta(600_000));
        assertTrue(!new MetricWindow(WindowShape.forWindow(60_000)).restore(ci), "another shape takes nothing");
    }

    @Test
    void aDamagedLineIsReportedWithFileAndLineAndCostsOnlyThatLine() throws Exception {
        Path file = dir.resolve(EvaluationFile.FILE_NAME);
        EvaluationFile.write(file, sample());
        List<String> lines = Files.readAllLines(file);
        // 1 header, 2 node-1, 3 its card, 4 node-2, 5 task, 6 replica, 7 queue, 8 pending alert, 9 firing alert
        assertEquals(9, lines.size());
        lines.set(2, lines.get(2).substring(0, lines.get(2).length() / 2));
        lines.set(5, "{\"replica\":\"train-7\",\"windows\":[]}");
        lines.set(7, lines.get(7).replace("\"PENDING\"", "\"SLEEPING\""));
        lines.add("{\"card\":\"GPU-4\",\"node\":\"node-7\",\"sampled\":1}");
        Files.write(file, lines);
        EvaluationFile.Loaded loaded = EvaluationFile.read(file);
        assertEquals(4, loaded.problems().size(), loaded.problems().toString());
        assertTrue(loaded.problems().get(0).startsWith(file + ":3: "), loaded.problems().get(0));
        assertTrue(loaded.problems().get(1).startsWith(file + ":6: replica of task 'train-7': node is required"),
                loaded.problems().get(1));
        assertTrue(loaded.problems().get(2).startsWith(file + ":8: state: 'SLEEPING'"), loaded.problems().get(2));
        assertTrue(loaded.problems().get(3).startsWith(file + ":10: card 'GPU-4' names node 'node-7'"),
                loaded.problems().get(3));
        assertEquals(List.of("train-7", "gpu-a"), loaded.evaluation().scopes().stream().map(ScopeImage::name).toList(),
                "the task and the queue, not the damaged replica");
        assertEquals(List.of("node-1", "node-2"), loaded.evaluation().nodes().stream().map(NodeImage::name).toList());
        assertEquals(List.of(), loaded.evaluation().nodes().get(0).cards(), "the truncated card is skipped");
        assertEquals(List.of("node-silent"), loaded.evaluation().alerts().stream().map(AlertImage::rule).toList());
    }

    @Test
    void aDamagedHeaderTakesNothingAndAMissingFileIsNothingHeld() throws Exception {
        Path file = dir.resolve(EvaluationFile.FILE_NAME);
        assertEquals(Evaluation.EMPTY, EvaluationFile.read(file).evaluation());
        EvaluationFile.write(file, sample());
        List<String> lines = Files.readAllLines(file);
        lines.set(0, "{\"v\":7,\"at\":1}");
        Files.write(file, lines);
        EvaluationFile.Loaded loaded = EvaluationFile.read(file);
        assertEquals(Evaluation.EMPTY, loaded.evaluation());
        assertEquals(List.of(file + ":1: evaluation file version 7 is not 1 (written by another gpuwatch?); nothing"
                + " of the file is taken"), loaded.problems());
    }

    @Test
    void theNewerFileGivesEverythingButTheWindowsWhichComeFromTheFileThatHasThem() {
        Evaluation all = sample();
        CardImage card = all.nodes().get(0).cards().get(0);
        CardImage later = new CardImage(card.uuid(), card.lastSampleAt() + 5_000, "train-8", "bo", "ads",
                card.events(), List.of());
        CardImage added = new CardImage("GPU-2", card.lastSampleAt() + 5_000, null, null, null, List.of(), List.of());
        NodeImage node = all.nodes().get(0);
        Evaluation newer = new Evaluation(all.at() + 5_000, List.of(new NodeImage(node.name(), node.hello(),
                node.lastFrameAt() + 5_000, node.lost(), node.events(), List.of(later, added), 404, 12)), List.of());
        Evaluation merged = newer.withWindowsOf(all);
        assertEquals(newer.at(), merged.at());
        assertEquals(List.of(), merged.alerts(), "the newer file's alerts");
        NodeImage n = merged.nodes().get(0);
        assertEquals(node.lastFrameAt() + 5_000, n.lastFrameAt());
        assertEquals("train-8", n.cards().get(0).task());
        assertEquals(card.windows(), n.cards().get(0).windows(), "the windows of the file that has them");
        assertEquals(List.of(), n.cards().get(1).windows(), "a card the older file lacks has none");
        assertEquals(399, n.heldSeq(), "the windows hold the samples of the file that has them");
        assertEquals(all.scopes(), merged.scopes(), "tasks', replicas' and queues' windows are in that file only");
        assertEquals(12, n.eventSeq(), "the events are the newer file's");
    }
}
