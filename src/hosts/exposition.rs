//! The Prometheus text format as an untrusted node's `/metrics` sends it:
//! the samples of the families a reader wants, nothing else.
//!
//! nvq's own reader rather than a crate's, after measuring the crates that
//! parse this format (`benches/RESULTS.md`, "Reading dcgm-exporter and
//! nvidia_gpu_exporter"): `prometheus-parse` splits labels on `,` and `=`
//! (a sample whose process name holds either is silently dropped) and
//! keeps escapes; `prom_text_format_parser` keeps label values escaped and
//! fails a whole scrape on one broken line; `prometheus-exposition-format-rs`
//! (nom 5) fails a whole scrape too; `openmetrics-parser` is LGPL-3.0,
//! which nvq's licence (MIT or Apache-2.0) does not take in.
//!
//! What it reads, in one pass over the bytes (time linear in the size,
//! which the fetch already bounds to 8 MiB):
//!
//! - a sample line `name{label="value",...} value [timestamp]`; comments
//!   (`# HELP`, `# TYPE`, `# EOF`) and empty lines are skipped;
//! - label values with the format's escapes (`\\`, `\"`, `\n`), cut to
//!   [`MAX_TEXT`] bytes, invalid UTF-8 replaced;
//! - values as Go writes them (`2.0780679168e+10`, `NaN`, `+Inf`); a value
//!   that is not finite, or beyond ±1e15, is kept as not finite: no fact is
//!   read from it.
//!
//! A line that breaks the format (an unclosed quote, a bad escape, a name
//! or label too long, more than [`MAX_LABELS`] labels, no value) is
//! skipped and counted, and the lines after it are read; at most
//! [`MAX_SAMPLES`] samples are kept.

/// The most samples kept from one exposition.
pub const MAX_SAMPLES: usize = 200_000;

/// The most labels a sample may have (dcgm-exporter's have about ten).
pub const MAX_LABELS: usize = 32;

/// The longest metric or label name read.
pub const MAX_NAME: usize = 200;

/// The most bytes kept of a label's value.
pub const MAX_TEXT: usize = nvq_core::model::wire::MAX_TEXT;

/// The largest magnitude of a value read as a number.
pub const MAX_VALUE: f64 = 1e15;

/// One sample.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// The metric's name.
    pub name: String,
    /// Its labels, in the order written (a repeated name: the first).
    pub labels: Vec<(String, String)>,
    /// Its value; not finite when the text was not a number in range.
    pub value: f64,
}

impl Sample {
    /// The value of label `key`.
    pub fn label(&self, key: &str) -> Option<&str> {
        self.labels
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The label that a profile's table (label name, what it carries) names
    /// for `what`.
    pub fn label_for<T: PartialEq>(&self, table: &[(&str, T)], what: T) -> Option<&str> {
        table
            .iter()
            .find(|(_, t)| *t == what)
            .and_then(|(l, _)| self.label(l))
    }
}

/// What an exposition held.
#[derive(Debug, Default, PartialEq)]
pub struct Exposition {
    /// The samples kept, in the order written.
    pub samples: Vec<Sample>,
    /// Sample lines skipped as broken.
    pub broken: usize,
    /// Sample lines of every family, kept or not (a reader's hint of what
    /// it was sent).
    pub lines: usize,
}

/// The samples of `text` whose metric name `wanted` accepts.
pub fn parse(text: &[u8], wanted: impl Fn(&str) -> bool) -> Exposition {
    let mut out = Exposition::default();
    for line in text.split(|&b| b == b'\n') {
        let line = trim(line);
        if line.is_empty() || line[0] == b'#' {
            continue;
        }
        out.lines += 1;
        match sample(line, &wanted) {
            Line::Kept(s) if out.samples.len() < MAX_SAMPLES => out.samples.push(s),
            Line::Kept(_) | Line::Other => {}
            Line::Broken => out.broken += 1,
        }
    }
    out
}

/// What one sample line was.
enum Line {
    Kept(Sample),
    /// Of a family not wanted.
    Other,
    Broken,
}

fn trim(mut b: &[u8]) -> &[u8] {
    while let [b' ' | b'\t' | b'\r', rest @ ..] = b {
        b = rest;
    }
    while let [rest @ .., b' ' | b'\t' | b'\r'] = b {
        b = rest;
    }
    b
}

/// A cursor over one line.
struct Cursor<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.at).copied()
    }

    fn spaces(&mut self) -> usize {
        let from = self.at;
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.at += 1;
        }
        self.at - from
    }

    fn eat(&mut self, c: u8) -> bool {
        let ok = self.peek() == Some(c);
        if ok {
            self.at += 1;
        }
        ok
    }

    /// A metric name (`colon`) or label name: `[a-zA-Z_:][a-zA-Z0-9_:]*`.
    fn name(&mut self, colon: bool) -> Option<&'a str> {
        let from = self.at;
        let ok = |c: u8, first: bool| {
            c.is_ascii_alphabetic()
                || c == b'_'
                || (colon && c == b':')
                || (!first && c.is_ascii_digit())
        };
        while let Some(c) = self.peek() {
            if !ok(c, self.at == from) {
                break;
            }
            self.at += 1;
        }
        let len = self.at - from;
        if len == 0 || len > MAX_NAME {
            return None;
        }
        std::str::from_utf8(&self.b[from..self.at]).ok()
    }

    /// A quoted label value, its escapes read, cut to [`MAX_TEXT`] bytes.
    fn quoted(&mut self) -> Option<String> {
        if !self.eat(b'"') {
            return None;
        }
        let mut v: Vec<u8> = Vec::new();
        loop {
            let c = self.peek()?;
            self.at += 1;
            let byte = match c {
                b'"' => break,
                b'\\' => {
                    let e = self.peek()?;
                    self.at += 1;
                    match e {
                        b'\\' => b'\\',
                        b'"' => b'"',
                        b'n' => b'\n',
                        _ => return None,
                    }
                }
                c => c,
            };
            if v.len() < MAX_TEXT {
                v.push(byte);
            }
        }
        let mut s = String::from_utf8_lossy(&v).into_owned();
        if s.len() > MAX_TEXT {
            let mut end = MAX_TEXT;
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            s.truncate(end);
        }
        Some(s)
    }

    /// The next word (up to a space or the end).
    fn word(&mut self) -> &'a [u8] {
        let from = self.at;
        while !matches!(self.peek(), None | Some(b' ' | b'\t')) {
            self.at += 1;
        }
        &self.b[from..self.at]
    }
}

fn sample(line: &[u8], wanted: &impl Fn(&str) -> bool) -> Line {
    let mut c = Cursor { b: line, at: 0 };
    let Some(name) = c.name(true) else {
        return Line::Broken;
    };
    if !wanted(name) {
        return Line::Other;
    }
    let mut labels: Vec<(String, String)> = Vec::new();
    c.spaces();
    if c.eat(b'{') {
        loop {
            c.spaces();
            if c.eat(b'}') {
                break;
            }
            let Some(key) = c.name(false) else {
                return Line::Broken;
            };
            c.spaces();
            if !c.eat(b'=') {
                return Line::Broken;
            }
            c.spaces();
            let Some(value) = c.quoted() else {
                return Line::Broken;
            };
            if labels.len() == MAX_LABELS {
                return Line::Broken;
            }
            if !labels.iter().any(|(k, _)| k == key) {
                labels.push((key.to_string(), value));
            }
            c.spaces();
            if c.eat(b'}') {
                break;
            }
            if !c.eat(b',') {
                return Line::Broken;
            }
        }
    }
    c.spaces();
    let Some(value) = number(c.word()) else {
        return Line::Broken;
    };
    Line::Kept(Sample {
        name: name.to_string(),
        labels,
        value,
    })
}

/// A value as the format writes it: a decimal number (with an exponent),
/// `NaN` or an infinity; `None` for anything else. Beyond ±[`MAX_VALUE`]
/// reads as NaN.
fn number(word: &[u8]) -> Option<f64> {
    if word.is_empty() || word.len() > 64 {
        return None;
    }
    let text = std::str::from_utf8(word).ok()?;
    let lower = text.to_ascii_lowercase();
    if matches!(lower.as_str(), "nan" | "+inf" | "-inf" | "inf") {
        return Some(f64::NAN);
    }
    if !text
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.' | b'e' | b'E'))
    {
        return None;
    }
    let v: f64 = text.parse().ok()?;
    Some(if v.is_finite() && v.abs() <= MAX_VALUE {
        v
    } else {
        f64::NAN
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &str) -> Exposition {
        parse(text.as_bytes(), |_| true)
    }

    #[test]
    fn samples_labels_and_values_as_go_writes_them() {
        let e = all("# HELP a_bytes Size.\n# TYPE a_bytes gauge\n\
                     a_bytes{uuid=\"u1\", pid = \"7\"} 2.0780679168e+10\n\
                     b 3 1700000000000\r\n\n# EOF\n");
        assert_eq!(e.broken, 0);
        assert_eq!(e.samples.len(), 2);
        assert_eq!(e.samples[0].name, "a_bytes");
        assert_eq!(e.samples[0].label("pid"), Some("7"));
        assert_eq!(e.samples[0].value, 2.0780679168e10);
        assert_eq!((e.samples[1].name.as_str(), e.samples[1].value), ("b", 3.0));
        assert!(e.samples[1].labels.is_empty());
    }

    #[test]
    fn escapes_commas_and_braces_in_a_value_stay_in_it() {
        let e = all(
            "app{pid=\"1\",process_name=\"train.py --lr=0.1,0.2 }{\\\"x\\\"\\\\\\n\",uuid=\"u\"} 1\n",
        );
        let s = &e.samples[0];
        assert_eq!(
            s.label("process_name"),
            Some("train.py --lr=0.1,0.2 }{\"x\"\\\n")
        );
        assert_eq!(s.label("uuid"), Some("u"));
    }

    #[test]
    fn broken_lines_are_skipped_and_the_rest_read() {
        let e = all("a{uuid=\"u 1\n\
             a{uuid=\"\\q\"} 1\n\
             a{uuid=\"u\"}\n\
             a{uuid=\"u\" 1\n\
             a{=\"u\"} 1\n\
             9a 1\n\
             a 0x10\n\
             a{uuid=\"u\"} 5\n");
        assert_eq!(e.broken, 7, "{e:?}");
        assert_eq!(e.samples.len(), 1);
        assert_eq!(e.samples[0].value, 5.0);
    }

    #[test]
    fn huge_and_odd_numbers_are_not_numbers() {
        let e = all("a 1e400\nb 1e16\nc NaN\nd +Inf\ne -1e15\n");
        let v: Vec<f64> = e.samples.iter().map(|s| s.value).collect();
        assert!(v[0].is_nan() && v[1].is_nan() && v[2].is_nan() && v[3].is_nan());
        assert_eq!(v[4], -1e15);
    }

    #[test]
    fn limits_hold_whatever_a_node_sends() {
        let long = "é".repeat(MAX_TEXT);
        let e = all(&format!("a{{v=\"{long}\"}} 1\n"));
        let v = e.samples[0].label("v").unwrap();
        assert!(v.len() <= MAX_TEXT && v.chars().all(|c| c == 'é'));
        let many: Vec<String> = (0..=MAX_LABELS).map(|i| format!("l{i}=\"x\"")).collect();
        let e = all(&format!("a{{{}}} 1\n", many.join(",")));
        assert_eq!((e.samples.len(), e.broken), (0, 1));
        let e = all(&format!("{} 1\n", "a".repeat(MAX_NAME + 1)));
        assert_eq!(e.broken, 1);
        let e = parse(b"\xff\xfe{a=\"\xff\"} 1\nb{a=\"\xff\"} 1\n", |_| true);
        assert_eq!(e.samples[0].label("a"), Some("\u{fffd}"));
        let mut text = String::new();
        for _ in 0..MAX_SAMPLES + 5 {
            text.push_str("a 1\n");
        }
        assert_eq!(all(&text).samples.len(), MAX_SAMPLES);
    }

    #[test]
    fn families_not_wanted_are_not_read() {
        let e = parse(b"a 1\nb{x=\"unclosed 2\nc 3\n", |n| n != "b");
        assert_eq!(e.samples.len(), 2);
        assert_eq!((e.broken, e.lines), (0, 3));
    }
}
