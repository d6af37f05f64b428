//! A series thinned to what a picture of some width can show: each pixel column's lowest and highest point.

use nvq_core::model::history::Point;

/// At most about `width` pixel columns' worth of points: each column's lowest and highest, in time order. A series
/// that fits is returned whole.
pub(super) fn thin(points: &[Point], width: usize) -> Vec<Point> {
    let n = points.len();
    let columns = width.max(10);
    if n <= 2 * columns {
        return points.to_vec();
    }
    let (Some(&first), Some(&last)) = (points.first(), points.last()) else {
        return Vec::new();
    };
    let span = (last.t - first.t).max(1e-9);
    let mut out = Vec::with_capacity(2 * columns + 2);
    let mut bucket: Option<(usize, Point, Point)> = None;
    for &p in points {
        let b = (((p.t - first.t) / span) * columns as f64) as usize;
        match &mut bucket {
            Some((k, lo, hi)) if *k == b => {
                if p.v < lo.v {
                    *lo = p;
                }
                if p.v > hi.v {
                    *hi = p;
                }
            }
            _ => {
                if let Some((_, lo, hi)) = bucket.take() {
                    push_pair(&mut out, lo, hi);
                }
                bucket = Some((b, p, p));
            }
        }
    }
    if let Some((_, lo, hi)) = bucket {
        push_pair(&mut out, lo, hi);
    }
    out
}

fn push_pair(out: &mut Vec<Point>, a: Point, b: Point) {
    let (x, y) = if a.t <= b.t { (a, b) } else { (b, a) };
    out.push(x);
    if y.t != x.t || y.v != x.v {
        out.push(y);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thinning_keeps_every_columns_extremes() {
        let mut s = Vec::with_capacity(100_000);
        for i in 0..100_000 {
            let v = if i == 54_321 { 1e9 } else { (i % 7) as f64 };
            s.push(Point { t: i as f64, v });
        }
        let t = thin(&s, 1000);
        assert!(t.len() <= 2002, "{}", t.len());
        assert!(t.iter().any(|p| p.v == 1e9));
        assert!(t.windows(2).all(|w| w[0].t <= w[1].t));
        let small = thin(&s, 100_000);
        assert_eq!(small.len(), 100_000);
    }
}
