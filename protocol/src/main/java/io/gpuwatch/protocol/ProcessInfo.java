package io.gpuwatch.protocol;

/** A compute process on a card and what it is attributed to; attribution fields are null when unknown. */
public record ProcessInfo(long pid, Long usedMemBytes, String task, String owner, String business) {
}
