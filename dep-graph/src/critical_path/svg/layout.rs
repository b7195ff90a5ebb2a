//! The report's vertical layout: where each heading, legend, chart and bar
//! goes, from the worker count and the legends' line counts.

use super::style::{BAR_H, LEGEND_LINE_H, PATH_ROW_GAP, PATH_ROW_H, PROFILE_H, X_AXIS_H};

/// Vertical positions of everything (px), from the worker count and the
/// legends' line counts.
#[derive(Clone, Copy, Debug)]
pub(super) struct Layout {
    pub(super) height: u32,
    workers: u32,
    pub(super) timeline_heading: i32,
    pub(super) timeline_legend: i32,
    /// The timeline chart: rows, then its x axis.
    pub(super) timeline_top: i32,
    /// Height of the worker rows together.
    pub(super) worker_rows_h: i32,
    pub(super) path_row_top: i32,
    pub(super) profile_heading: i32,
    pub(super) profile_legend: i32,
    pub(super) profile_top: i32,
    pub(super) breakdown_heading: i32,
    pub(super) path_bar: i32,
    pub(super) path_legend: i32,
    pub(super) run_bar: i32,
    pub(super) run_legend: i32,
    pub(super) note: i32,
}

impl Layout {
    pub(super) fn new(workers: u32, legend_lines: [i32; 4]) -> Layout {
        let [timeline_lines, profile_lines, path_lines, run_lines] = legend_lines;
        let pitch = (320 / workers.max(1) as i32).clamp(2, 22);
        let worker_rows_h = (pitch * workers as i32).min(640);
        let mut y = 8;
        let mut take = |h: i32| {
            let at = y;
            y += h;
            at
        };
        take(58); // the title and subtitle
        let timeline_heading = take(24);
        let timeline_legend = take(LEGEND_LINE_H * timeline_lines + 4);
        let timeline_top = take(worker_rows_h + PATH_ROW_GAP + PATH_ROW_H + X_AXIS_H + 12);
        let path_row_top = timeline_top + worker_rows_h + PATH_ROW_GAP;
        let profile_heading = take(24);
        let profile_legend = take(LEGEND_LINE_H * profile_lines + 4);
        let profile_top = take(PROFILE_H + X_AXIS_H + 12);
        let breakdown_heading = take(26);
        let path_bar = take(BAR_H + 6);
        let path_legend = take(LEGEND_LINE_H * path_lines + 8);
        let run_bar = take(BAR_H + 6);
        let run_legend = take(LEGEND_LINE_H * run_lines + 4);
        let note = take(LEGEND_LINE_H + 8);
        Layout {
            height: y as u32,
            workers,
            timeline_heading,
            timeline_legend,
            timeline_top,
            worker_rows_h,
            path_row_top,
            profile_heading,
            profile_legend,
            profile_top,
            breakdown_heading,
            path_bar,
            path_legend,
            run_bar,
            run_legend,
            note,
        }
    }

    /// The pixel rows `[top, bottom)` of worker `w`'s bars.
    pub(super) fn worker_row(&self, w: u32) -> (i32, i32) {
        let n = i64::from(self.workers.max(1));
        let h = i64::from(self.worker_rows_h);
        let top = self.timeline_top + (h * i64::from(w) / n) as i32;
        let next = self.timeline_top + (h * (i64::from(w) + 1) / n) as i32;
        let gap = i32::from(next - top >= 4);
        (top, (next - gap).max(top + 1))
    }
}
