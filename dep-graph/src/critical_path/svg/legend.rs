//! Legends: their entries (a colour swatch and a label), how they wrap over
//! lines, how they are drawn, and the legends of the breakdown bars.

use plotters::prelude::*;
use plotters::style::text_anchor::HPos;

use super::super::analysis::percent;
use super::draw::{rect, text, Area, DrawResult};
use super::style::{CHAR_W, LABEL_SIZE, LEFT, LEGEND_LINE_H, PLOT_W};

/// How a legend entry shows its colour.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Swatch {
    /// A filled square.
    Box,
    /// A line.
    Line,
    /// A dashed line.
    Dashed,
    /// No swatch: a plain text entry.
    Text,
}

/// One legend entry.
#[derive(Clone, Debug)]
pub(super) struct Entry {
    label: String,
    colour: RGBColor,
    swatch: Swatch,
}

pub(super) fn entry(label: impl Into<String>, colour: RGBColor, swatch: Swatch) -> Entry {
    Entry {
        label: label.into(),
        colour,
        swatch,
    }
}

/// The width of an entry in the legend (px), with the space after it.
fn entry_width(e: &Entry) -> i32 {
    let swatch = if e.swatch == Swatch::Text { 0 } else { 18 };
    swatch + CHAR_W * e.label.chars().count() as i32 + 16
}

/// Lays out entries left to right from `LEFT`, wrapping at the right margin;
/// returns each entry's `(x, line)`.
fn legend_layout(entries: &[Entry]) -> Vec<(i32, i32)> {
    let (mut x, mut line) = (LEFT, 0);
    entries
        .iter()
        .map(|e| {
            let w = entry_width(e);
            if x > LEFT && x + w > LEFT + PLOT_W {
                x = LEFT;
                line += 1;
            }
            let at = (x, line);
            x += w;
            at
        })
        .collect()
}

/// The number of lines a legend takes.
pub(super) fn legend_lines(entries: &[Entry]) -> i32 {
    legend_layout(entries)
        .last()
        .map_or(0, |&(_, line)| line + 1)
}

/// Draws a legend from `LEFT` at `top`.
pub(super) fn draw_legend(area: &Area<'_>, entries: &[Entry], top: i32) -> DrawResult<()> {
    for (e, (x, line)) in entries.iter().zip(legend_layout(entries)) {
        let y = top + line * LEGEND_LINE_H;
        let mid = y + 7;
        let label_x = match e.swatch {
            Swatch::Box => {
                rect(area, (x, y + 1), (x + 12, y + 13), e.colour)?;
                x + 18
            }
            Swatch::Line | Swatch::Dashed => {
                let style = e.colour.stroke_width(2);
                if e.swatch == Swatch::Line {
                    area.draw(&PathElement::new(vec![(x, mid), (x + 14, mid)], style))?;
                } else {
                    area.draw(&PathElement::new(vec![(x, mid), (x + 5, mid)], style))?;
                    area.draw(&PathElement::new(vec![(x + 9, mid), (x + 14, mid)], style))?;
                }
                x + 18
            }
            Swatch::Text => x,
        };
        text(area, &e.label, (label_x, y), LABEL_SIZE, HPos::Left)?;
    }
    Ok(())
}

/// The legend of a breakdown bar: each segment's name and percentage.
pub(super) fn segment_legend(segments: &[(String, u64, RGBColor)], whole: u64) -> Vec<Entry> {
    segments
        .iter()
        .map(|(name, value, colour)| {
            entry(
                format!("{name} {:.1}%", percent(*value, whole)),
                *colour,
                Swatch::Box,
            )
        })
        .collect()
}
