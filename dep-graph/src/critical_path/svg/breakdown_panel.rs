//! The breakdown panel: the critical path's length and the run's
//! `T × workers` as stacked percentage bars, each with its legend.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::super::analysis::percent;
use super::draw::{rect, text, text_style, Area, DrawResult};
use super::legend::draw_legend;
use super::report::Report;
use super::scale::{format_duration, x_pixel};
use super::style::{BAR_H, CHAR_W, HEADING_SIZE, LEFT, PLOT_W};

impl Report<'_> {
    pub(super) fn draw_breakdown(&self, root: &Area<'_>) -> DrawResult<()> {
        let l = &self.layout;
        let a = self.analysis;
        text(
            root,
            "Breakdown",
            (LEFT, l.breakdown_heading),
            HEADING_SIZE,
            HPos::Left,
        )?;
        let path_length = a.critical_path.length;
        draw_bar(
            root,
            "critical path",
            &self.path_segments,
            path_length,
            l.path_bar,
        )?;
        draw_legend(root, &self.path_legend, l.path_legend)?;
        let total = a.run.total();
        draw_bar(root, "run", &self.run_segments, total, l.run_bar)?;
        draw_legend(root, &self.run_legend, l.run_legend)?;
        let note = format!(
            "critical path = {} ({} strands); run = elapsed × workers; \
             nowork during critical-path scheduler delay: {:.1}% of the run ({:.1}% of all nowork)",
            format_duration(path_length),
            a.critical_path.steps.len(),
            percent(a.nowork_from_critical_scheduler_delay, total),
            percent(a.nowork_from_critical_scheduler_delay, a.run.nowork),
        );
        text(root, &note, (LEFT, l.note), 13.0, HPos::Left)
    }
}

/// A stacked horizontal bar of `segments` (shares of `whole`) across the
/// plot width, labelled on the left, with percentages on the wide segments.
fn draw_bar(
    root: &Area<'_>,
    label: &str,
    segments: &[(String, u64, RGBColor)],
    whole: u64,
    top: i32,
) -> DrawResult<()> {
    root.draw(&Text::new(
        label.to_string(),
        (LEFT - 6, top + BAR_H / 2),
        text_style(13.0, &BLACK, HPos::Right, VPos::Center),
    ))?;
    rect(
        root,
        (LEFT, top),
        (LEFT + PLOT_W, top + BAR_H),
        RGBColor(245, 245, 245),
    )?;
    let mut sum = 0u64;
    for (_, value, colour) in segments {
        let x0 = x_pixel(sum, whole);
        sum += value;
        let x1 = x_pixel(sum, whole);
        if x1 <= x0 {
            continue;
        }
        rect(root, (x0, top), (x1, top + BAR_H), *colour)?;
        let share = percent(*value, whole);
        let label = format!("{share:.1}%");
        if x1 - x0 >= CHAR_W * label.len() as i32 + 8 {
            let RGBColor(r, g, b) = *colour;
            let luminance = 0.299 * f64::from(r) + 0.587 * f64::from(g) + 0.114 * f64::from(b);
            let ink: &'static RGBColor = if luminance < 150.0 { &WHITE } else { &BLACK };
            root.draw(&Text::new(
                label,
                ((x0 + x1) / 2, top + BAR_H / 2),
                text_style(13.0, ink, HPos::Center, VPos::Center),
            ))?;
        }
    }
    Ok(())
}
