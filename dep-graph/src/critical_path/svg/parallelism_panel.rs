//! The parallelism-profile panel: `running(t)` and `ready(t)` averaged per
//! pixel column, with a line at the number of workers.

use plotters::prelude::*;
use plotters::style::text_anchor::HPos;

use super::super::parallelism::ProfileBucket;
use super::draw::{text, Area, Chart, DrawResult};
use super::legend::draw_legend;
use super::report::Report;
use super::scale::axis_format;
use super::style::{FONT, HEADING_SIZE, LEFT, PROFILE_H, READY, RUNNING};

impl Report<'_> {
    pub(super) fn draw_profile(&self, root: &Area<'_>) -> DrawResult<()> {
        let l = &self.layout;
        text(
            root,
            "Parallelism profile (strands running, and ready but not started)",
            (LEFT, l.profile_heading),
            HEADING_SIZE,
            HPos::Left,
        )?;
        draw_legend(root, &self.profile_legend, l.profile_legend)?;
        let buckets = &self.gathered.buckets;
        let workers = f64::from(self.dag.workers());
        let scale = self.scale;
        let chart = self.time_chart(
            root,
            (l.profile_top, PROFILE_H),
            0.0..scale.top,
            scale.ready_top.is_some(),
        )?;
        let ns = self.unit.ns;
        let step = |value: fn(&ProfileBucket) -> f64| -> Vec<(f64, f64)> {
            buckets
                .iter()
                .flat_map(|b| {
                    let v = value(b);
                    [(b.start as f64 / ns, v), (b.end as f64 / ns, v)]
                })
                .collect()
        };
        let running = step(|b| b.mean_running);
        let mut area = vec![(0.0, 0.0)];
        area.extend(running.iter().copied());
        area.push((self.end as f64 / ns, 0.0));
        let ready = LineSeries::new(step(|b| b.mean_ready), READY.stroke_width(2));
        let draw_running = |chart: &mut Chart<'_>| -> DrawResult<()> {
            chart.draw_series(std::iter::once(Polygon::new(
                area.clone(),
                RUNNING.mix(0.25).filled(),
            )))?;
            chart.draw_series(LineSeries::new(running.clone(), RUNNING.stroke_width(1)))?;
            chart.draw_series(DashedLineSeries::new(
                vec![(0.0, workers), (self.axis_end(), workers)],
                6,
                4,
                BLACK.stroke_width(1),
            ))?;
            Ok(())
        };
        match scale.ready_top {
            None => {
                let mut chart = chart;
                self.draw_time_mesh(&mut chart, 6, "strands")?;
                draw_running(&mut chart)?;
                chart.draw_series(ready)?;
            }
            Some(top) => {
                // Ready counts dwarf the worker count: their own axis, on
                // the right (taken over by the secondary coordinates before
                // the primary mesh is drawn, so that it stays on the left).
                let mut dual = chart.set_secondary_coord(0.0..self.axis_end(), 0.0..top);
                self.draw_time_mesh(&mut dual, 6, "running")?;
                let y_format = axis_format(top);
                dual.configure_secondary_axes()
                    .y_labels(6)
                    .y_label_formatter(&y_format)
                    .y_desc("ready")
                    .label_style((FONT, 13.0).into_font().color(&READY))
                    .axis_desc_style((FONT, 14.0).into_font().color(&READY))
                    .draw()?;
                draw_running(&mut dual)?;
                dual.draw_secondary_series(ready)?;
            }
        }
        Ok(())
    }
}
