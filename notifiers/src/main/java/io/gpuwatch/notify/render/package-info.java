/**
 * Turns a batch of notifications into the text a receiver sends: {@link io.gpuwatch.notify.render.Template}
 * fills user-overridable {@code {{…}}} slots, {@link io.gpuwatch.notify.render.Layout} renders a batch into a
 * {@link io.gpuwatch.notify.render.Digest} (a title and one entry per alert), and
 * {@link io.gpuwatch.notify.render.Limit} / {@link io.gpuwatch.notify.render.Truncation} cut text to a target's
 * size limit, dropping whole entries behind a {@code +N more} line so that no message is ever rejected as too long.
 * Rendered text is a {@link io.gpuwatch.notify.render.Text}, which knows which characters came from slot values;
 * those are escaped for the target's {@link io.gpuwatch.notify.render.Markup} only after any cut.
 * Periodic summaries are a {@link io.gpuwatch.notify.render.Report}, with their trend drawn as a
 * {@link io.gpuwatch.notify.render.Sparkline} or a {@link io.gpuwatch.notify.render.ChartImage}.
 */
package io.gpuwatch.notify.render;
