package dev.inference.benchmarks.storm;

import java.util.List;
import java.util.Locale;

/**
 * Draws the storm as an SVG image: one panel per contender, stacked, on the same axes, each with the
 * provider's requests per second (the line) and its 429s per second (the filled area beneath), and a
 * dashed line at the provider's capacity per second. Written by hand: a few lines of SVG earn no
 * charting library.
 */
final class StormChart {

    static final int WIDTH = 760;

    static final int PANEL_HEIGHT = 120;

    private static final int LEFT = 48;

    private static final int RIGHT = 16;

    private static final int TOP = 34;

    private static final int GAP = 30;

    private StormChart() {
    }

    /**
     * Draws the chart.
     *
     * @param panels one per contender, in the order drawn
     * @param capacityPerSecond the provider's capacity, requests per second
     * @return the SVG document
     */
    static String svg(List<Panel> panels, double capacityPerSecond) {
        int seconds = Math.max(1, panels.stream().mapToInt((panel) -> panel.perSecond().size()).max().orElse(1));
        long peak = panels.stream()
            .flatMap((panel) -> panel.perSecond().stream())
            .mapToLong((counts) -> counts[0])
            .max()
            .orElse(1);
        double top = niceCeiling(Math.max(peak, (long) Math.ceil(capacityPerSecond)));
        int height = TOP + panels.size() * (PANEL_HEIGHT + GAP) + 10;
        double plotWidth = WIDTH - LEFT - RIGHT;
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                        + "font-family=\"sans-serif\" font-size=\"11\">%n",
                WIDTH, height, WIDTH, height));
        svg.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", WIDTH, height));
        svg.append(String.format(Locale.ROOT,
                "<text x=\"%d\" y=\"16\" font-size=\"13\">Provider's requests per second (line) and 429s per "
                        + "second (red area); dashed: its capacity (%s/s)</text>%n",
                LEFT, number(capacityPerSecond)));
        for (int i = 0; i < panels.size(); i++) {
            Panel panel = panels.get(i);
            int y0 = TOP + i * (PANEL_HEIGHT + GAP) + 14;
            int base = y0 + PANEL_HEIGHT;
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">%s</text>%n", LEFT,
                    y0 - 4, escape(panel.label())));
            svg.append(String.format(Locale.ROOT,
                    "<rect x=\"%d\" y=\"%d\" width=\"%s\" height=\"%d\" fill=\"none\" stroke=\"#bbb\"/>%n", LEFT, y0,
                    number(plotWidth), PANEL_HEIGHT));
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>%n", LEFT - 4,
                    y0 + 10, number(top)));
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">0</text>%n", LEFT - 4,
                    base));
            double capacityY = base - capacityPerSecond / top * PANEL_HEIGHT;
            svg.append(String.format(Locale.ROOT,
                    "<line x1=\"%d\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"#555\" stroke-dasharray=\"4 3\"/>%n", LEFT,
                    number(capacityY), number(LEFT + plotWidth), number(capacityY)));
            List<long[]> perSecond = panel.perSecond();
            StringBuilder refused = new StringBuilder();
            StringBuilder requests = new StringBuilder();
            refused.append(point(LEFT, base));
            for (int s = 0; s < perSecond.size(); s++) {
                double x = LEFT + (s + 0.5) * plotWidth / seconds;
                requests.append(s == 0 ? "" : " ").append(point(x, base - perSecond.get(s)[0] / top * PANEL_HEIGHT));
                refused.append(' ').append(point(x, base - perSecond.get(s)[1] / top * PANEL_HEIGHT));
            }
            refused.append(' ').append(point(LEFT + perSecond.size() * plotWidth / seconds, base));
            svg.append(String.format(Locale.ROOT,
                    "<polygon class=\"refused\" points=\"%s\" fill=\"#e4572e\" fill-opacity=\"0.6\"/>%n", refused));
            svg.append(String.format(Locale.ROOT,
                    "<polyline class=\"requests\" points=\"%s\" fill=\"none\" stroke=\"#1f5fa8\" stroke-width=\"1.5\"/>%n",
                    requests));
        }
        int axis = TOP + panels.size() * (PANEL_HEIGHT + GAP) - GAP + 28;
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">0 s</text>%n", LEFT, axis));
        svg.append(String.format(Locale.ROOT, "<text x=\"%s\" y=\"%d\" text-anchor=\"end\">%d s</text>%n",
                number(LEFT + plotWidth), axis, seconds));
        svg.append("</svg>\n");
        return svg.toString();
    }

    /**
     * Rounds an axis's top up to 1, 2 or 5 times a power of ten.
     *
     * @param value the largest value drawn, positive
     * @return the axis's top, at least {@code value}
     */
    static double niceCeiling(double value) {
        double power = Math.pow(10, Math.floor(Math.log10(Math.max(1, value))));
        for (double step : new double[] { 1, 2, 5, 10 }) {
            if (step * power >= value) {
                return step * power;
            }
        }
        return 10 * power;
    }

    private static String point(double x, double y) {
        return number(x) + "," + number(y);
    }

    private static String number(double value) {
        return String.format(Locale.ROOT, "%.1f", value).replace(".0", "");
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

    /**
     * One contender's panel.
     *
     * @param label its name
     * @param perSecond its {@code [requests, 429s]} per second of the run
     */
    record Panel(String label, List<long[]> perSecond) {
    }
}
