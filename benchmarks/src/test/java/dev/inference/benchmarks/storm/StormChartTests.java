package dev.inference.benchmarks.storm;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.w3c.dom.Element;

class StormChartTests {

    private static final List<StormChart.Panel> PANELS = List.of(
            new StormChart.Panel("no retry", List.of(new long[] { 15, 5 }, new long[] { 15, 5 })),
            new StormChart.Panel("a <b> & c", List.of(new long[] { 10, 0 }, new long[] { 20, 10 },
                    new long[] { 10, 0 })));

    @Nested
    class Svg {

        @Test
        void isWellFormedSvg() throws Exception {
            assertThat(parse(StormChart.svg(PANELS, 10)).getDocumentElement().getTagName()).isEqualTo("svg");
        }

        @Test
        void drawsOnePanelPerContenderWithItsLabel() throws Exception {
            org.w3c.dom.Document svg = parse(StormChart.svg(PANELS, 10));

            assertThat(svg.getElementsByTagName("polyline").getLength()).isEqualTo(2);
            assertThat(svg.getElementsByTagName("polygon").getLength()).isEqualTo(2);
            assertThat(StormChart.svg(PANELS, 10)).contains(">no retry<").contains(">a &lt;b&gt; &amp; c<");
        }

        @Test
        void drawsOnePointPerSecondOfRequests() throws Exception {
            org.w3c.dom.Document svg = parse(StormChart.svg(PANELS, 10));

            Element second = (Element) svg.getElementsByTagName("polyline").item(1);
            assertThat(second.getAttribute("points").split(" ")).hasSize(3);
        }

        @Test
        void scalesEveryPanelToTheSamePeak() throws Exception {
            org.w3c.dom.Document svg = parse(StormChart.svg(PANELS, 10));

            // The peak, 20 a second, reaches the top of its panel: the panel starts 14 below its title row.
            Element second = (Element) svg.getElementsByTagName("polyline").item(1);
            int panelTop = 34 + (StormChart.PANEL_HEIGHT + 30) + 14;
            assertThat(second.getAttribute("points").split(" ")[1]).endsWith("," + panelTop);
        }
    }

    @Nested
    class Axis {

        @ParameterizedTest
        @CsvSource({ "7, 10", "10, 10", "11, 20", "23, 50", "51, 100", "0.5, 1" })
        void roundsTheTopUpToOneTwoOrFiveTimesAPowerOfTen(double peak, double top) {
            assertThat(StormChart.niceCeiling(peak)).isEqualTo(top);
        }
    }

    private static org.w3c.dom.Document parse(String svg) throws Exception {
        return DocumentBuilderFactory.newInstance()
            .newDocumentBuilder()
            .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
    }
}
