package io.gpuwatch.probe.sim;

import io.gpuwatch.probe.scenario.Expectation;
import io.gpuwatch.probe.trace.Recording;
import io.gpuwatch.probe.trace.TraceWriter;
import io.gpuwatch.protocol.Frame;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;

/**
 * Plays a {@link SimFleet} in virtual time, as fast as it goes, into a trace: no gateway, no real clock. Frames
 * go in the order a gateway would have received them: nothing from a node while it is silent or rebooting (a gap;
 * its events arrive after, with the time they happened), and what a node sampled while its probe was
 * disconnected arrives in one burst when it reconnects, as its uplink replays it. Each node's hello is written
 * before its first frame and again after a reboot. Also resolves the scenario's labels against the running
 * fleet: card uuids, and the task on the card (or the node's first busy card) as the incident begins.
 */
public final class SimRecorder {
    private final SimFleet fleet;
    private final TraceWriter writer;
    private final Recording recording;

    /** A recorder of the fleet, which must start at the scenario's start and have a duration. */
    public SimRecorder(SimFleet fleet, TraceWriter writer) {
        if (fleet.scenario().duration() == null) {
            throw new IllegalArgumentException("an offline recording needs a scenario with a duration");
        }
        this.fleet = fleet;
        this.writer = writer;
        this.recording = new Recording(writer);
    }

    /** Runs the scenario to its end into the trace and returns its labels, in the scenario's order. */
    public List<Label> run() {
        long start = fleet.startMs();
        long end = start + fleet.scenario().duration().toMillis();
        long interval = fleet.scenario().intervalMs();
        Map<String, List<Frame>> held = new LinkedHashMap<>();
        List<Expectation> expectations = fleet.scenario().expectations();
        String[][] before = new String[expectations.size()][];
        String[][] after = new String[expectations.size()][];
        for (long now = start; now < end; now += interval) {
            for (String producer : fleet.producers()) {
                if (fleet.silent(producer, now)) {
                    continue;
                }
                List<Frame> frames = fleet.frames(producer, now);
                List<Frame> buffer = held.computeIfAbsent(producer, p -> new ArrayList<>());
                if (fleet.disconnected(producer, now)) {
                    buffer.addAll(frames);
                    continue;
                }
                recording.hello(fleet.hello(producer));
                buffer.forEach(f -> recording.record(producer, f));
                buffer.clear();
                frames.forEach(f -> recording.record(producer, f));
                keepUp();
            }
            resolve(now - start, interval, expectations, before, after);
        }
        // a disconnect that outlasts the run reconnects at its end
        held.forEach((producer, frames) -> frames.forEach(f -> recording.record(producer, f)));
        List<Label> labels = new ArrayList<>(expectations.size());
        for (int i = 0; i < expectations.size(); i++) {
            Expectation e = expectations.get(i);
            String[] task = e.holderAfter() && after[i] != null || before[i] == null ? after[i] : before[i];
            String uuid = e.card() == null ? null : fleet.uuid(e.node(), e.card());
            labels.add(new Label(e, uuid, task == null ? null : task[0], task == null ? null : task[1]));
        }
        return labels;
    }

    /** The task at the last step before each incident's start, and at the first step from it. */
    private void resolve(long elapsed, long interval, List<Expectation> expectations, String[][] before,
                         String[][] after) {
        for (int i = 0; i < expectations.size(); i++) {
            Expectation e = expectations.get(i);
            long at = e.at().toMillis();
            if (e.node() == null || elapsed >= at + interval) {
                continue;
            }
            if (elapsed < at) {
                before[i] = taskOf(e);
            } else {
                after[i] = taskOf(e);
            }
        }
    }

    private String[] taskOf(Expectation e) {
        if (e.card() != null) {
            return fleet.task(e.node(), e.card());
        }
        for (int c = 0; c < fleet.scenario().cardsPerNode(); c++) {
            String[] task = fleet.task(e.node(), c);
            if (task != null) {
                return task;
            }
        }
        return null;
    }

    /** Waits for the writer when it falls behind, so it never sheds a reading of a run that can wait. */
    private void keepUp() {
        if (writer.stats().queued() > TraceWriter.DEFAULT_CAPACITY / 2) {
            try {
                writer.flush().join();
            } catch (CompletionException e) {
                // the writer has failed; close() reports it
            }
        }
    }

    /** An expectation resolved against the fleet: the card's uuid and the task and business at its start. */
    public record Label(Expectation expectation, String uuid, String task, String business) {
    }
}
