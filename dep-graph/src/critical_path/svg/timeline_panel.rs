//! The timeline panel: one row per worker, with a bar per strand or, for
//! large runs, pixel columns merged into runs, and the critical-path row
//! below them.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::draw::{rect, text, text_style, Area, DrawResult};
use super::legend::draw_legend;
use super::path::{path_colour, PATH_CATEGORIES, WORK};
use super::report::Report;
use super::scale::{x_pixel, Columns};
use super::style::{
    BINNED_BUSY, CELL_BUDGET, CRITICAL, HEADING_SIZE, LEFT, PATH_ROW_GAP, PATH_ROW_H, PLOT_W,
    TASK_PALETTE,
};

impl Report<'_> {
    pub(super) fn draw_timeline(&self, root: &Area<'_>) -> DrawResult<()> {
        let l = &self.layout;
        text(
            root,
            "Timeline (one row per worker)",
            (LEFT, l.timeline_heading),
            HEADING_SIZE,
            HPos::Left,
        )?;
        draw_legend(root, &self.timeline_legend, l.timeline_legend)?;
        let rows_h = l.worker_rows_h + PATH_ROW_GAP + PATH_ROW_H;
        let mut chart = self.time_chart(root, (l.timeline_top, rows_h), 0.0..1.0, false)?;
        self.draw_time_mesh(&mut chart, 0, "")?;
        self.draw_worker_labels(root)?;
        if self.binned {
            self.draw_binned_workers(root)?;
        } else {
            self.draw_strands(root)?;
        }
        self.draw_path_row(root)
    }

    fn draw_worker_labels(&self, root: &Area<'_>) -> DrawResult<()> {
        let l = &self.layout;
        let workers = self.dag.workers();
        let pitch = l.worker_rows_h as f64 / f64::from(workers.max(1));
        let every = (12.0 / pitch).ceil().max(1.0) as u32;
        let style = text_style(12.0, &BLACK, HPos::Right, VPos::Center);
        for w in (0..workers).step_by(every as usize) {
            let (top, bottom) = l.worker_row(w);
            root.draw(&Text::new(
                format!("w{w}"),
                (LEFT - 6, (top + bottom) / 2),
                style.clone(),
            ))?;
        }
        root.draw(&Text::new(
            "critical path",
            (LEFT - 6, l.path_row_top + PATH_ROW_H / 2),
            style,
        ))?;
        Ok(())
    }

    /// One bar per strand: `[start, end)` rounded to pixels, at least 1 px
    /// wide, 1 px shorter when 3 px or more so that neighbours stay apart.
    pub(super) fn strand_span(&self, start: u64, end: u64) -> (i32, i32) {
        let x0 = x_pixel(start, self.end);
        let mut x1 = x_pixel(end, self.end).max(x0 + 1);
        if x1 - x0 >= 3 {
            x1 -= 1;
        }
        (x0, x1)
    }

    fn on_path(&self) -> Vec<bool> {
        let mut on_path = vec![false; self.dag.strands().len()];
        for step in &self.analysis.critical_path.steps {
            on_path[step.strand.index()] = true;
        }
        on_path
    }

    fn draw_strands(&self, root: &Area<'_>) -> DrawResult<()> {
        let on_path = self.on_path();
        for (i, s) in self.dag.strands().iter().enumerate() {
            let (top, bottom) = self.layout.worker_row(s.worker);
            let (x0, x1) = self.strand_span(s.start, s.end);
            let colour = if on_path[i] {
                CRITICAL
            } else {
                TASK_PALETTE[s.task as usize % TASK_PALETTE.len()]
            };
            rect(root, (x0, top), (x1, bottom), colour)?;
        }
        Ok(())
    }

    /// Each worker row cut into columns: busy when strands cover at least
    /// half of the column, critical when critical-path strands cover at least
    /// half of that; equal neighbours merge.
    fn draw_binned_workers(&self, root: &Area<'_>) -> DrawResult<()> {
        if self.end == 0 {
            return Ok(());
        }
        let workers = self.dag.workers().max(1) as usize;
        let wanted = (CELL_BUDGET / workers).clamp(8, PLOT_W as usize);
        let columns = Columns::new(self.end, wanted);
        let on_path = self.on_path();
        let mut busy = vec![0u64; columns.count];
        let mut critical = vec![0u64; columns.count];
        for w in 0..self.dag.workers() {
            busy.fill(0);
            critical.fill(0);
            // A worker's strands come in time order: the first column of
            // each is found by moving forward.
            let mut first = 0;
            for id in self.dag.worker_strands(w) {
                let s = self.dag.strand(id);
                if s.start == s.end {
                    continue;
                }
                while columns.start(first + 1) <= s.start {
                    first += 1;
                }
                let critical_strand = on_path[id.index()];
                columns.add(first, (s.start, s.end), |c, overlap| {
                    busy[c] += overlap;
                    if critical_strand {
                        critical[c] += overlap;
                    }
                });
            }
            let state = |c: usize| {
                let width = columns.start(c + 1) - columns.start(c);
                if 2 * busy[c] < width {
                    None
                } else if 2 * critical[c] >= busy[c] {
                    Some(CRITICAL)
                } else {
                    Some(BINNED_BUSY)
                }
            };
            let (top, bottom) = self.layout.worker_row(w);
            draw_runs(root, &columns, state, (top, bottom))?;
        }
        Ok(())
    }

    fn draw_path_row(&self, root: &Area<'_>) -> DrawResult<()> {
        let (top, bottom) = (
            self.layout.path_row_top,
            self.layout.path_row_top + PATH_ROW_H,
        );
        let pieces = &self.gathered.pieces;
        if !self.binned && pieces.len() <= PLOT_W as usize {
            // Delays first, then the strands over them.
            for p in pieces.iter().filter(|p| p.category != WORK) {
                let x0 = x_pixel(p.from, self.end);
                let x1 = x_pixel(p.to, self.end).max(x0 + 1);
                rect(root, (x0, top), (x1, bottom), path_colour(p.category))?;
            }
            for p in pieces.iter().filter(|p| p.category == WORK) {
                let (x0, x1) = self.strand_span(p.from, p.to);
                rect(root, (x0, top), (x1, bottom), CRITICAL)?;
            }
            return Ok(());
        }
        if self.end == 0 {
            return Ok(());
        }
        // Each column takes the category covering most of it.
        let columns = Columns::new(self.end, PLOT_W as usize);
        let mut cover = vec![[0u64; PATH_CATEGORIES]; columns.count];
        for p in pieces.iter().filter(|p| p.from < p.to) {
            columns.add(columns.of(p.from), (p.from, p.to), |c, overlap| {
                cover[c][p.category] += overlap;
            });
        }
        let state = |c: usize| {
            let best = (0..PATH_CATEGORIES)
                .max_by_key(|&k| (cover[c][k], std::cmp::Reverse(k)))
                .unwrap_or(WORK);
            (cover[c][best] > 0).then(|| path_colour(best))
        };
        draw_runs(root, &columns, state, (top, bottom))
    }
}

/// Draws columns as rectangles over `[top, bottom)`, merging neighbours of
/// the same colour; `state(c)` is column `c`'s colour, `None` for nothing.
fn draw_runs(
    root: &Area<'_>,
    columns: &Columns,
    state: impl Fn(usize) -> Option<RGBColor>,
    (top, bottom): (i32, i32),
) -> DrawResult<()> {
    let mut run: Option<(usize, RGBColor)> = None;
    for c in 0..=columns.count {
        let here = if c < columns.count { state(c) } else { None };
        match run {
            Some((_, colour)) if here == Some(colour) => {}
            _ => {
                if let Some((from, colour)) = run {
                    rect(
                        root,
                        (columns.pixel(from), top),
                        (columns.pixel(c), bottom),
                        colour,
                    )?;
                }
                run = here.map(|colour| (c, colour));
            }
        }
    }
    Ok(())
}
