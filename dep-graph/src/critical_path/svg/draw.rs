//! The drawing primitives every panel uses: the plotters types the report
//! draws on, text in the report's font, and filled rectangles.

use std::error::Error;

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::style::FONT;

pub(super) type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
pub(super) type DrawResult<T> = Result<T, Box<dyn Error>>;
pub(super) type Chart<'b> =
    ChartContext<'b, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

pub(super) fn text_style(
    size: f64,
    colour: &'static RGBColor,
    h: HPos,
    v: VPos,
) -> TextStyle<'static> {
    TextStyle::from((FONT, size).into_font())
        .color(colour)
        .pos(Pos::new(h, v))
}

pub(super) fn text(area: &Area<'_>, s: &str, at: (i32, i32), size: f64, h: HPos) -> DrawResult<()> {
    area.draw(&Text::new(
        s.to_string(),
        at,
        text_style(size, &BLACK, h, VPos::Top),
    ))?;
    Ok(())
}

/// A filled rectangle over pixels `[x0, x1) × [y0, y1)`.
pub(super) fn rect(
    area: &Area<'_>,
    (x0, y0): (i32, i32),
    (x1, y1): (i32, i32),
    c: RGBColor,
) -> DrawResult<()> {
    area.draw(&Rectangle::new([(x0, y0), (x1, y1)], c.filled()))?;
    Ok(())
}
