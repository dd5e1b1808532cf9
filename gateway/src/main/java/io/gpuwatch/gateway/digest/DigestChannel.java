package io.gpuwatch.gateway.digest;

import io.gpuwatch.notify.receiver.chat.ReportTarget;

import java.util.Objects;

/** One digest schedule of one chat receiver: its name, when it runs, and the channel its reports go to. */
public record DigestChannel(String receiver, DigestSchedule schedule, ReportTarget target) {
    public DigestChannel {
        Objects.requireNonNull(receiver, "receiver");
        Objects.requireNonNull(schedule, "schedule");
        Objects.requireNonNull(target, "target");
    }
}
