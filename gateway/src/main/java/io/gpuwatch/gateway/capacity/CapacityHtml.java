package io.gpuwatch.gateway.capacity;

import io.gpuwatch.notify.render.Markup;

import java.util.List;
import java.util.Locale;

/**
 * The capacity report as one self-contained HTML page for a browser: the same sections as the Markdown form, each
 * with an inline SVG bar chart drawn here (no script, no stylesheet or font from elsewhere). Every name in it
 * (owners, tasks, pools, queues come from producers) is escaped.
 */
public final class CapacityHtml {
    private static final int BAR_AREA = 360;
    private static final int LABEL_WIDTH = 220;
    private static final int ROW = 18;
    /** Bars beyond this many are left out of a chart (the table lists them all). */
    private static final int MAX_BARS = 40;

    private CapacityHtml() {
    }

    /** The page. */
    public static String page(CapacityReport r) {
        StringBuilder sb = new StringBuilder("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                + "<title>").append(esc(CapacityText.title(r))).append(" · gpuwatch</title><style>"
                + "body{font-family:system-ui,sans-serif;margin:2em;max-width:1100px;color:#222}"
                + "table{border-collapse:collapse;margin:.5em 0 1em}"
                + "th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;font-size:14px}"
                + "th{background:#f3f3f3}p.note{color:#555}</style></head><body>\n<h1>")
                .append(esc(CapacityText.title(r))).append("</h1>\n<p>").append(esc(CapacityText.coverage(r)))
                .append("</p>\n");
        for (Section s : CapacityText.sections(r)) {
            sb.append("<h2>").append(esc(s.title())).append("</h2>\n<p class=\"note\">").append(esc(s.text()))
                    .append("</p>\n");
            if (s.rows().isEmpty()) {
                sb.append("<p>Nothing in this window.</p>\n");
                continue;
            }
            if (!s.chart().isEmpty()) {
                sb.append(svg(s.chart(), s.chartUnit()));
            }
            sb.append("<table><tr>");
            s.headers().forEach(h -> sb.append("<th>").append(esc(h)).append("</th>"));
            sb.append("</tr>\n");
            for (List<String> row : s.rows()) {
                sb.append("<tr>");
                row.forEach(c -> sb.append("<td>").append(esc(c)).append("</td>"));
                sb.append("</tr>\n");
            }
            sb.append("</table>\n");
        }
        return sb.append("</body></html>\n").toString();
    }

    /** A horizontal bar chart: one labelled bar per value, scaled to the largest. */
    static String svg(List<Section.Bar> bars, String unit) {
        List<Section.Bar> shown = bars.subList(0, Math.min(MAX_BARS, bars.size()));
        double max = 0;
        for (Section.Bar b : shown) {
            if (!Double.isNaN(b.value()) && b.value() > max) {
                max = b.value();
            }
        }
        int width = LABEL_WIDTH + BAR_AREA + 90;
        int height = shown.size() * ROW + 24;
        StringBuilder sb = new StringBuilder("<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" width=\"")
                .append(width).append("\" height=\"").append(height).append("\" font-size=\"12\" "
                        + "font-family=\"sans-serif\"><title>").append(esc(unit)).append("</title>\n");
        for (int i = 0; i < shown.size(); i++) {
            Section.Bar b = shown.get(i);
            double v = Double.isNaN(b.value()) || b.value() < 0 ? 0 : b.value();
            int w = max > 0 ? (int) Math.round(v / max * BAR_AREA) : 0;
            int y = i * ROW;
            String label = b.label().codePointCount(0, b.label().length()) > 34
                    ? b.label().substring(0, b.label().offsetByCodePoints(0, 33)) + "…" : b.label();
            sb.append("<text x=\"").append(LABEL_WIDTH - 6).append("\" y=\"").append(y + 13)
                    .append("\" text-anchor=\"end\">").append(esc(label)).append("</text>")
                    .append("<rect x=\"").append(LABEL_WIDTH).append("\" y=\"").append(y + 3).append("\" width=\"")
                    .append(Math.max(w, 1)).append("\" height=\"").append(ROW - 5).append("\" fill=\"#3b6fd0\"/>")
                    .append("<text x=\"").append(LABEL_WIDTH + w + 4).append("\" y=\"").append(y + 13).append("\">")
                    .append(esc(String.format(Locale.ROOT, v < 10 ? "%.2f" : "%,.0f", v))).append("</text>\n");
        }
        sb.append("<text x=\"").append(LABEL_WIDTH).append("\" y=\"").append(height - 6).append("\" fill=\"#555\">")
                .append(esc(unit)).append("</text></svg>\n");
        return sb.toString();
    }

    private static String esc(String s) {
        return Markup.HTML.escape(s);
    }
}
