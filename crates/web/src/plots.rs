//! The progress page's charts, drawn on the server as SVG: no chart library, nothing to load.
//! Colours come from the stylesheet through class names (the palette has one source).

// Chart geometry turns small counts (weeks, rows, lessons per bucket) into pixel positions.
#![allow(clippy::cast_precision_loss, clippy::cast_possible_wrap, clippy::cast_possible_truncation)]

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;

use chrono::{DateTime, Datelike, Duration, NaiveDate, Utc};
use devcoach_core::evidence::Evidence;
use devcoach_core::lesson::Feedback;

const W: f64 = 640.0;
const H: f64 = 220.0;
const LEFT: f64 = 36.0;
const RIGHT: f64 = 12.0;
const TOP: f64 = 12.0;
const BOTTOM: f64 = 28.0;

fn esc(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn open(out: &mut String, label: &str, height: f64) {
    let _ = write!(
        out,
        r#"<svg class="plot" viewBox="0 0 {W} {height}" role="img" aria-label="{}"><title>{}</title>"#,
        esc(label),
        esc(label)
    );
}

/// A "nice" upper bound for an axis and its tick step.
fn scale(max: u32) -> (u32, u32) {
    let max = max.max(1);
    let step = match max {
        0..=5 => 1,
        6..=10 => 2,
        11..=25 => 5,
        26..=50 => 10,
        51..=125 => 25,
        _ => max.div_ceil(5).next_power_of_two(),
    };
    (max.div_ceil(step) * step, step)
}

fn y_axis(out: &mut String, top: u32, step: u32, plot_h: f64) {
    let mut v = 0;
    while v <= top {
        let y = TOP + plot_h - f64::from(v) / f64::from(top) * plot_h;
        let _ = write!(out, r#"<line class="gridline" x1="{LEFT}" x2="{}" y1="{y:.1}" y2="{y:.1}"/>"#, W - RIGHT);
        let _ = write!(out, r#"<text class="tick" x="{}" y="{:.1}" text-anchor="end">{v}</text>"#, LEFT - 6.0, y + 4.0);
        v += step;
    }
}

/// Monday of the week holding `day`.
fn week_start(day: NaiveDate) -> NaiveDate {
    day - Duration::days(i64::from(day.weekday().num_days_from_monday()))
}

/// A lesson, as the charts need it.
pub(crate) struct LessonPoint {
    pub at: DateTime<Utc>,
    pub imported: bool,
    pub feedback: Option<Feedback>,
    pub topic: String,
}

/// Lessons per week, own and shared stacked, from the first lesson's week (at least 8 weeks, at
/// most `weeks`); the number of weeks drawn comes back with the chart.
pub(crate) fn weekly(lessons: &[LessonPoint], now: DateTime<Utc>, weeks: usize) -> (String, usize) {
    let last = week_start(now.date_naive());
    if lessons.is_empty() {
        return (empty("Each week's lessons will be counted here, yours and those shared with you."), 0);
    }
    let since = lessons.iter().map(|l| week_start(l.at.date_naive())).min().map(|w| (last - w).num_weeks());
    let weeks = window(since, 8, weeks);
    let first = last - Duration::weeks(i64::try_from(weeks).unwrap_or(1) - 1);
    let mut own = vec![0u32; weeks];
    let mut shared = vec![0u32; weeks];
    for l in lessons {
        let w = week_start(l.at.date_naive());
        if w < first || w > last {
            continue;
        }
        let i = usize::try_from((w - first).num_weeks()).unwrap_or(0).min(weeks - 1);
        if l.imported { shared[i] += 1 } else { own[i] += 1 }
    }
    let max = own.iter().zip(&shared).map(|(a, b)| a + b).max().unwrap_or(0);
    let (top, step) = scale(max);
    let plot_h = H - TOP - BOTTOM;
    let slot = (W - LEFT - RIGHT) / weeks as f64;
    let mut out = String::new();
    open(&mut out, "Lessons per week", H);
    y_axis(&mut out, top, step, plot_h);
    for i in 0..weeks {
        let x = LEFT + slot * i as f64 + slot * 0.15;
        let bw = slot * 0.7;
        let mut base = TOP + plot_h;
        for (count, class, what) in [(own[i], "col own", "yours"), (shared[i], "col shared", "shared")] {
            if count == 0 {
                continue;
            }
            let h = f64::from(count) / f64::from(top) * plot_h;
            base -= h;
            let day = first + Duration::weeks(i as i64);
            let _ = write!(
                out,
                r#"<rect class="{class}" x="{x:.1}" y="{base:.1}" width="{bw:.1}" height="{h:.1}" rx="2"><title>Week of {}: {count} {what}</title></rect>"#,
                day.format("%-d %b %Y")
            );
        }
        // A date every second week; every fourth stays when the chart is drawn small.
        if i % 2 == 0 {
            let day = first + Duration::weeks(i as i64);
            let _ = write!(
                out,
                r#"<text class="tick{}" x="{:.1}" y="{}" text-anchor="middle">{}</text>"#,
                if i % 4 == 0 { "" } else { " minor" },
                x + bw / 2.0,
                H - 8.0,
                day.format("%-d %b")
            );
        }
    }
    out.push_str("</svg>");
    legend(&mut out, &[("col own", "yours"), ("col shared", "shared with you")]);
    (out, weeks)
}

/// The key of a chart, as HTML under it (it wraps on a narrow screen instead of overlapping).
fn legend(out: &mut String, items: &[(&str, &str)]) {
    out.push_str(r#"<ul class="plot-legend">"#);
    for (class, label) in items {
        let _ = write!(out, r#"<li><span class="swatch {class}" aria-hidden="true"></span>{}</li>"#, esc(label));
    }
    out.push_str("</ul>");
}

/// What an empty chart will show once there is something to draw (`code` in backticks).
fn empty(what: &str) -> String {
    format!(r#"<p class="plot-empty muted">{}</p>"#, code_spans(&esc(what)))
}

/// Escaped text with each `` `…` `` pair as `<code>…</code>` (escaping leaves backticks alone).
fn code_spans(escaped: &str) -> String {
    let mut out = String::with_capacity(escaped.len());
    let mut parts = escaped.split('`');
    out.push_str(parts.next().unwrap_or_default());
    let rest: Vec<&str> = parts.collect();
    for (i, part) in rest.iter().enumerate() {
        // An unpaired backtick at the end stays as it was.
        if i % 2 == 0 && i + 1 == rest.len() {
            out.push('`');
            out.push_str(part);
        } else if i % 2 == 0 {
            out.push_str("<code>");
            out.push_str(part);
            out.push_str("</code>");
        } else {
            out.push_str(part);
        }
    }
    out
}

/// How many of the last `max` periods to draw: from the first one with data (at least `min`),
/// so a new learner's chart is not mostly empty axis.
fn window(periods_since_first: Option<i64>, min: usize, max: usize) -> usize {
    let min = min.min(max);
    periods_since_first.map_or(min, |n| usize::try_from(n + 1).unwrap_or(min).clamp(min, max))
}

/// Answers per month over the last `months` months, stacked by kind.
pub(crate) fn feedback_mix(lessons: &[LessonPoint], now: DateTime<Utc>, months: usize) -> String {
    let month_index = |d: NaiveDate| d.year() * 12 + i32::try_from(d.month0()).unwrap_or(0);
    let last = month_index(now.date_naive());
    let own: Vec<&LessonPoint> = lessons.iter().filter(|l| !l.imported).collect();
    if own.is_empty() {
        return empty(
            "Your answers to each month's lessons (knew it, understood, couldn't follow) will be drawn here.",
        );
    }
    let since = own.iter().map(|l| month_index(l.at.date_naive())).min().map(|m| i64::from(last - m));
    let months = window(since, 3, months);
    let first = last - i32::try_from(months).unwrap_or(1) + 1;
    let mut counts = vec![[0u32; 4]; months];
    for l in own {
        let m = month_index(l.at.date_naive());
        if m < first || m > last {
            continue;
        }
        let kind = match l.feedback {
            Some(Feedback::Know) => 0,
            Some(Feedback::Understood) => 1,
            Some(Feedback::DontKnow) => 2,
            None => 3,
        };
        counts[usize::try_from(m - first).unwrap_or(0)][kind] += 1;
    }
    let max = counts.iter().map(|c| c.iter().sum::<u32>()).max().unwrap_or(0);
    let (top, step) = scale(max);
    let plot_h = H - TOP - BOTTOM;
    let slot = (W - LEFT - RIGHT) / months as f64;
    let classes = ["col fb-know", "col fb-understood", "col fb-dont_know", "col fb-none"];
    let names = ["knew it", "understood", "couldn't follow", "no answer"];
    let mut out = String::new();
    open(&mut out, "How lessons landed, by month", H);
    y_axis(&mut out, top, step, plot_h);
    for (i, c) in counts.iter().enumerate() {
        let x = LEFT + slot * i as f64 + slot * 0.15;
        let bw = slot * 0.7;
        let mut base = TOP + plot_h;
        let m = first + i32::try_from(i).unwrap_or(0);
        let label = NaiveDate::from_ymd_opt(m.div_euclid(12), u32::try_from(m.rem_euclid(12)).unwrap_or(0) + 1, 1)
            .map(|d| d.format("%b %Y").to_string())
            .unwrap_or_default();
        for k in 0..4 {
            if c[k] == 0 {
                continue;
            }
            let h = f64::from(c[k]) / f64::from(top) * plot_h;
            base -= h;
            let _ = write!(
                out,
                r#"<rect class="{}" x="{x:.1}" y="{base:.1}" width="{bw:.1}" height="{h:.1}" rx="2"><title>{label}: {} {}</title></rect>"#,
                classes[k], c[k], names[k]
            );
        }
        let short = label.split(' ').next().unwrap_or_default();
        let _ = write!(
            out,
            r#"<text class="tick{}" x="{:.1}" y="{}" text-anchor="middle">{short}</text>"#,
            if i % 2 == 0 || i + 1 == months { "" } else { " minor" },
            x + bw / 2.0,
            H - 8.0
        );
    }
    out.push_str("</svg>");
    legend(&mut out, &[(classes[0], names[0]), (classes[1], names[1]), (classes[2], names[2]), (classes[3], names[3])]);
    out
}

/// One topic's confidence changes: (when, value after).
type Series = Vec<(DateTime<Utc>, i64)>;

/// Confidence over time for the topics with the most history (at most `lines`).
pub(crate) fn confidence(evidence: &[Evidence], now: DateTime<Utc>, lines: usize) -> (String, Vec<String>) {
    let mut by_topic: BTreeMap<&str, Series> = BTreeMap::new();
    for e in evidence {
        if let (Some(v), Ok(at)) = (e.value_after, devcoach_core::time::parse_timestamp(&e.at)) {
            by_topic.entry(e.topic.as_str()).or_default().push((at, v));
        }
    }
    let mut topics: Vec<(&str, Series)> = by_topic.into_iter().collect();
    topics.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then_with(|| a.0.cmp(b.0)));
    topics.truncate(lines);
    if topics.is_empty() {
        return (
            empty(
                "Every confidence change (your answers, onboarding, your own edits) will be drawn here, a line per topic.",
            ),
            Vec::new(),
        );
    }
    let first = topics.iter().filter_map(|(_, pts)| pts.first().map(|p| p.0)).min().unwrap_or(now - Duration::days(30));
    // "now" is the right edge; the first change sits a tenth in from the left, and a first
    // session's few minutes spread over at least five (over an hour they all sat at the right
    // edge, unreadable on a phone).
    let span = ((now - first).num_seconds() as f64 * 1.1).max(300.0);
    let start = now - Duration::seconds(span as i64);
    let plot_h = H - TOP - BOTTOM;
    let plot_w = W - LEFT - RIGHT - 8.0;
    let x_of = |t: DateTime<Utc>| LEFT + (t - start).num_seconds() as f64 / span * plot_w;
    let y_of = |v: i64| TOP + plot_h - v.clamp(0, 10) as f64 / 10.0 * plot_h;
    let mut out = String::new();
    open(&mut out, "Confidence per topic over time", H);
    y_axis(&mut out, 10, 2, plot_h);
    // Times along the bottom: hours within two days, dates beyond; a label that would repeat
    // the one before it is left out.
    let format = if span < 2.0 * 86_400.0 { "%H:%M" } else { "%-d %b" };
    let mut last_label = String::new();
    for k in 0..=4 {
        let at = start + Duration::seconds((span * f64::from(k) / 4.0) as i64);
        let anchor = match k {
            0 => "start",
            4 => "end",
            _ => "middle",
        };
        let label = if k == 4 { "now".to_owned() } else { at.format(format).to_string() };
        if label == last_label {
            continue;
        }
        let _ = write!(
            out,
            r#"<text class="tick{}" x="{:.1}" y="{}" text-anchor="{anchor}">{label}</text>"#,
            if k % 2 == 1 { " minor" } else { "" },
            x_of(at),
            H - 8.0
        );
        last_label = label;
    }
    let mut keys = Vec::new();
    for (i, (topic, pts)) in topics.iter().enumerate() {
        let mut d = String::new();
        let mut marks = String::new();
        for (j, (at, v)) in pts.iter().enumerate() {
            let (x, y) = (x_of(*at), y_of(*v));
            if j == 0 {
                let _ = write!(d, "M{x:.1},{y:.1}");
            } else {
                // A step: the value holds until the next change.
                let _ = write!(d, " H{x:.1} V{y:.1}");
            }
            marks.push_str(&marker(i, x, y));
        }
        if let Some((_, v)) = pts.last() {
            let _ = write!(d, " H{:.1}", x_of(now));
            let _ = write!(
                out,
                r#"<g class="series s-{i}"><path class="line" d="{d}"/>{marks}<title>{}: {v}/10 now</title></g>"#,
                esc(topic)
            );
            keys.push((format!("series s-{i}"), format!("{topic} {v}/10")));
        }
    }
    out.push_str("</svg>");
    out.push_str(r#"<ul class="plot-legend">"#);
    for (i, (class, label)) in keys.iter().enumerate() {
        let _ = write!(
            out,
            r#"<li><svg class="key {class}" viewBox="0 0 28 12" width="28" height="12" aria-hidden="true"><path class="line" d="M1,6 H27"/>{}</svg>{}</li>"#,
            marker(i, 14.0, 6.0),
            esc(label)
        );
    }
    out.push_str("</ul>");
    (out, topics.iter().map(|(t, _)| (*t).to_owned()).collect())
}

/// A change point of series `i`: each series has its own shape as well as its own colour, so
/// lines that overlap or look alike stay apart (and read without colour).
fn marker(i: usize, x: f64, y: f64) -> String {
    match i % 6 {
        0 => format!(r#"<circle class="mark" cx="{x:.1}" cy="{y:.1}" r="3.5"/>"#),
        1 => format!(r#"<rect class="mark" x="{:.1}" y="{:.1}" width="7" height="7"/>"#, x - 3.5, y - 3.5),
        2 => format!(r#"<path class="mark" d="M{x:.1},{:.1} l4,7 h-8z"/>"#, y - 4.0),
        3 => format!(r#"<path class="mark" d="M{x:.1},{:.1} l4,4 l-4,4 l-4,-4z"/>"#, y - 4.0),
        4 => format!(r#"<circle class="mark hollow" cx="{x:.1}" cy="{y:.1}" r="3.5"/>"#),
        _ => format!(r#"<path class="mark cross" d="M{:.1},{:.1} l7,7 m0,-7 l-7,7"/>"#, x - 3.5, y - 3.5),
    }
}

/// Lessons per topic next to the knowledge map: which topics were taught, and how well they
/// are known now. `known` maps a topic to its confidence. Drawn as an HTML list of bars, so the
/// names keep their size and wrap on a phone.
pub(crate) fn coverage(lessons: &[LessonPoint], known: &HashMap<String, i64>, rows: usize) -> (String, usize, usize) {
    let mut taught: HashMap<&str, u32> = HashMap::new();
    for l in lessons {
        *taught.entry(l.topic.as_str()).or_default() += 1;
    }
    let mut topics: Vec<(&str, u32)> = taught.iter().map(|(t, n)| (*t, *n)).collect();
    topics.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    let covered = known.keys().filter(|t| taught.contains_key(t.as_str())).count();
    if topics.is_empty() {
        return (
            empty("Each topic your lessons covered will get a bar here, beside your own number for it."),
            0,
            known.len(),
        );
    }
    let more = topics.len().saturating_sub(rows);
    let shown: Vec<(&str, u32)> = topics.into_iter().take(rows).collect();
    let max = shown.iter().map(|(_, n)| *n).max().unwrap_or(1);
    let mut out = String::from(r#"<ol class="bars" aria-label="Lessons per topic, with confidence">"#);
    for (topic, n) in &shown {
        let (class, conf) = match known.get(*topic) {
            // The learner's own number, not a verdict: the model's estimate and the calibration
            // lines may say otherwise, on the same page.
            Some(c) => ("own", format!("your number {c}/10")),
            None => ("shared", "not on your map".to_owned()),
        };
        let lessons = if *n == 1 { "1 lesson".to_owned() } else { format!("{n} lessons") };
        let pct = f64::from(*n) / f64::from(max) * 100.0;
        let _ = write!(
            out,
            r#"<li><span class="bar-name">{}</span><span class="bar-track"><span class="bar-fill {class}" style="width: {pct:.0}%"></span></span><span class="bar-value">{lessons} · {}</span></li>"#,
            esc(topic),
            esc(&conf)
        );
    }
    out.push_str("</ol>");
    if more > 0 {
        let topics = if more == 1 { "1 more topic".to_owned() } else { format!("{more} more topics") };
        let _ = write!(out, r#"<p class="muted small">The {rows} most taught; {topics} not shown.</p>"#);
    }
    (out, covered, known.len())
}

/// What the learner said of themselves against what their checked answers showed, summed over
/// every topic: one bar per kind of self-report, split into correct, partly and wrong. HTML, as
/// the coverage bars are.
pub(crate) fn self_vs_checked(topics: &[devcoach_core::checked::TopicCalibration]) -> String {
    use devcoach_core::checked::Claim;
    let mut tallies = [(0usize, 0usize, 0usize); 3];
    for c in topics {
        for (i, (_, t)) in c.claims.iter().enumerate() {
            tallies[i].0 += t.correct;
            tallies[i].1 += t.partly;
            tallies[i].2 += t.wrong;
        }
    }
    if tallies.iter().all(|(c, p, w)| c + p + w == 0) {
        return empty(
            "Explain a lesson back to your agent in your own words, or review with it: each checked answer \
             is drawn here beside what you said of yourself before it.",
        );
    }
    let said = |claim: Claim| match claim {
        Claim::Knew => "You said you knew it",
        Claim::Understood => "You said you understood",
        Claim::Lost => "You said you couldn't follow",
    };
    let mut out =
        String::from(r#"<ol class="bars checks" aria-label="Checked answers after each kind of self-report">"#);
    for (claim, (correct, partly, wrong)) in Claim::ALL.into_iter().zip(tallies) {
        let n = correct + partly + wrong;
        let share = |k: usize| if n == 0 { 0.0 } else { as_f64(k) / as_f64(n) * 100.0 };
        let value = if n == 0 {
            "no checks yet".to_owned()
        } else {
            format!("{correct} correct · {partly} partly · {wrong} wrong")
        };
        let _ = write!(
            out,
            r#"<li><span class="bar-name">{}</span><span class="bar-track split">{}{}{}</span><span class="bar-value">{value}</span></li>"#,
            said(claim),
            segment("correct", share(correct)),
            segment("partly", share(partly)),
            segment("wrong", share(wrong)),
        );
    }
    out.push_str("</ol>");
    legend(&mut out, &[("col seg-correct", "correct"), ("col seg-partly", "partly"), ("col seg-wrong", "wrong")]);
    out
}

/// Agent sessions per week by how the learner worked (work_insights): one split bar per week,
/// the newest last.
pub(crate) fn work_mix(weeks: &[devcoach_store::WorkWeek], enabled: bool) -> String {
    use devcoach_core::work_patterns::Pattern;
    let total: u32 = weeks.iter().map(|w| w.counts.values().sum::<u32>() + w.unclassified).sum();
    if total == 0 {
        return empty(if enabled {
            "Each agent session you finish from now on lands here by how you worked in it: delegating, debugging \
             through the agent, generating then understanding, asking about ideas, or code with explanations."
        } else {
            "Off. With `devcoach set work_insights on`, each agent session is read on this machine for how you \
             worked in it (counts only, never your words) and drawn here by week."
        });
    }
    let size = |w: &devcoach_store::WorkWeek| w.counts.values().sum::<u32>() + w.unclassified;
    let max = weeks.iter().map(size).max().unwrap_or(1).max(1);
    // From the first week with a session: a new learner's chart is not mostly empty weeks.
    let first = weeks.iter().position(|w| size(w) > 0).unwrap_or(0);
    let mut out = String::from(r#"<ol class="bars work" aria-label="Agent sessions per week, by how you worked">"#);
    for w in &weeks[first..] {
        let n: u32 = w.counts.values().sum::<u32>() + w.unclassified;
        let width = f64::from(n) / f64::from(max) * 100.0;
        let mut segments = String::new();
        for (i, p) in Pattern::ALL.iter().enumerate() {
            let k = w.counts.get(p).copied().unwrap_or(0);
            if k > 0 {
                let _ = write!(
                    segments,
                    r#"<span class="bar-seg work-{}" style="width: {:.0}%"></span>"#,
                    i + 1,
                    f64::from(k) / f64::from(n) * 100.0
                );
            }
        }
        if w.unclassified > 0 {
            let _ = write!(
                segments,
                r#"<span class="bar-seg work-none" style="width: {:.0}%"></span>"#,
                f64::from(w.unclassified) / f64::from(n) * 100.0
            );
        }
        let value = if n == 0 {
            "no sessions".to_owned()
        } else {
            let mut parts: Vec<String> = Pattern::ALL
                .iter()
                .filter_map(|p| w.counts.get(p).filter(|k| **k > 0).map(|k| format!("{k} {}", p.label())))
                .collect();
            if w.unclassified > 0 {
                parts.push(format!("{} untold", w.unclassified));
            }
            parts.join(" · ")
        };
        let _ = write!(
            out,
            r#"<li><span class="bar-name">{}</span><span class="bar-track"><span class="bar-track split" style="width: {width:.0}%">{segments}</span></span><span class="bar-value">{}</span></li>"#,
            w.starts.format("week of %-d %b"),
            esc(&value)
        );
    }
    out.push_str("</ol>");
    let items: Vec<(String, &str)> =
        Pattern::ALL.iter().enumerate().map(|(i, p)| (format!("col work-{}", i + 1), p.label())).collect();
    let borrowed: Vec<(&str, &str)> = items.iter().map(|(c, l)| (c.as_str(), *l)).collect();
    legend(&mut out, &borrowed);
    out
}

fn segment(kind: &str, percent: f64) -> String {
    if percent <= 0.0 {
        return String::new();
    }
    format!(r#"<span class="bar-seg seg-{kind}" style="width: {percent:.0}%"></span>"#)
}

fn as_f64(n: usize) -> f64 {
    f64::from(u32::try_from(n).unwrap_or(u32::MAX))
}

/// One bar per day (`class` colours them; `what` names a bar's count in its tooltip, singular
/// and plural).
pub(crate) fn per_day(label: &str, days: &[(NaiveDate, u32)], class: &str, what: (&str, &str)) -> String {
    let n = days.len().max(1);
    let (top, step) = scale(days.iter().map(|d| d.1).max().unwrap_or(0));
    let plot_h = H - TOP - BOTTOM;
    let slot = (W - LEFT - RIGHT) / n as f64;
    let mut out = String::new();
    open(&mut out, label, H);
    y_axis(&mut out, top, step, plot_h);
    for (i, (day, count)) in days.iter().enumerate() {
        let x = LEFT + slot * i as f64 + slot * 0.15;
        let bw = slot * 0.7;
        if *count > 0 {
            let h = f64::from(*count) / f64::from(top) * plot_h;
            let _ = write!(
                out,
                r#"<rect class="col {class}" x="{x:.1}" y="{:.1}" width="{bw:.1}" height="{h:.1}" rx="1.5"><title>{}: {count} {}</title></rect>"#,
                TOP + plot_h - h,
                day.format("%a %-d %b"),
                esc(if *count == 1 { what.0 } else { what.1 })
            );
        }
        if i % 7 == 0 {
            let _ = write!(
                out,
                r#"<text class="tick" x="{:.1}" y="{}" text-anchor="middle">{}</text>"#,
                x + bw / 2.0,
                H - 8.0,
                day.format("%-d %b")
            );
        }
    }
    out.push_str("</svg>");
    out
}

/// Predicted against observed recall: reviews grouped by the recall FSRS predicted just
/// before them, each group a dot at (mean prediction, share actually recalled). On the dashed
/// diagonal the model is calibrated; below it, it was too hopeful.
pub(crate) fn calibration(reviews: &[(f64, bool)]) -> String {
    const EDGES: [f64; 7] = [0.0, 0.5, 0.7, 0.8, 0.9, 0.95, 1.0001];
    if reviews.is_empty() {
        return empty(
            "Once you have reviewed a few cards twice, each group of reviews gets a dot here: the recall predicted against the recall you showed.",
        );
    }
    let size = H + 40.0;
    let plot = size - TOP - BOTTOM;
    let (x0, x1) = (LEFT + 8.0, LEFT + 8.0 + plot);
    let px = |p: f64| x0 + p * plot;
    let py = |p: f64| TOP + plot - p * plot;
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<svg class="plot square" viewBox="0 0 {:.0} {size}" role="img" aria-label="Predicted and observed recall"><title>Predicted and observed recall</title>"#,
        x1 + 16.0
    );
    for (k, t) in [0.0, 0.25, 0.5, 0.75, 1.0].into_iter().enumerate() {
        let _ =
            write!(out, r#"<line class="gridline" x1="{x0:.1}" x2="{x1:.1}" y1="{:.1}" y2="{:.1}"/>"#, py(t), py(t));
        let minor = if k % 2 == 1 { " minor" } else { "" };
        let _ = write!(
            out,
            r#"<text class="tick{minor}" x="{:.1}" y="{:.1}" text-anchor="end">{:.0}%</text>"#,
            x0 - 6.0,
            py(t) + 4.0,
            t * 100.0
        );
        let _ = write!(
            out,
            r#"<text class="tick{minor}" x="{:.1}" y="{:.1}" text-anchor="middle">{:.0}%</text>"#,
            px(t),
            size - 8.0,
            t * 100.0
        );
    }
    let _ = write!(
        out,
        r#"<path class="ideal" d="M{:.1},{:.1} L{:.1},{:.1}"><title>calibrated</title></path>"#,
        px(0.0),
        py(0.0),
        px(1.0),
        py(1.0)
    );
    let mut shown = 0;
    for w in EDGES.windows(2) {
        let group: Vec<&(f64, bool)> = reviews.iter().filter(|(p, _)| *p >= w[0] && *p < w[1]).collect();
        if group.is_empty() {
            continue;
        }
        let n = group.len() as f64;
        let predicted = group.iter().map(|(p, _)| p).sum::<f64>() / n;
        let observed = group.iter().filter(|(_, r)| *r).count() as f64 / n;
        let radius = (3.0 + n.sqrt()).min(12.0);
        let _ = write!(
            out,
            r#"<circle class="dot" cx="{:.1}" cy="{:.1}" r="{radius:.1}"><title>{} reviews predicted at {:.0}%: {:.0}% recalled</title></circle>"#,
            px(predicted.clamp(0.0, 1.0)),
            py(observed),
            group.len(),
            predicted * 100.0,
            observed * 100.0
        );
        shown += 1;
    }
    out.push_str("</svg>");
    let _ = write!(
        out,
        r#"<ul class="plot-legend"><li>across: the recall predicted</li><li>up: the share recalled</li><li>dashed: where they agree</li><li>{} in {}</li></ul>"#,
        if reviews.len() == 1 { "1 review".to_owned() } else { format!("{} reviews", reviews.len()) },
        if shown == 1 { "1 group".to_owned() } else { format!("{shown} groups") }
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        devcoach_core::time::parse_timestamp(s).expect("time")
    }

    fn point(s: &str, imported: bool, feedback: Option<Feedback>, topic: &str) -> LessonPoint {
        LessonPoint { at: at(s), imported, feedback, topic: topic.into() }
    }

    #[test]
    fn calibration_groups_by_prediction() {
        let mut reviews = vec![(0.95, true); 9];
        reviews.push((0.96, false));
        reviews.extend([(0.6, false), (0.65, true)]);
        let svg = calibration(&reviews);
        assert_eq!(svg.matches("<circle").count(), 2, "{svg}");
        assert!(svg.contains("10 reviews predicted at 95%: 90% recalled"), "{svg}");
        assert!(svg.contains("2 reviews predicted at 62%: 50% recalled"), "{svg}");
        assert!(svg.contains("<li>12 reviews in 2 groups</li>"), "{svg}");
        assert!(calibration(&[]).contains("plot-empty"));
    }

    #[test]
    fn a_first_day_spreads_over_the_hours_and_now_is_the_right_edge() {
        let now = at("2026-12-02T10:00:00Z");
        let ev = |v: i64, when: &str| Evidence {
            topic: "rust".into(),
            delta: None,
            value_after: Some(v),
            cause: devcoach_core::evidence::EvidenceCause::Onboarding,
            lesson_id: None,
            detail: None,
            at: when.into(),
        };
        let (svg, _) = confidence(&[ev(4, "2026-12-02T09:00:00.000Z"), ev(5, "2026-12-02T09:00:05.000Z")], now, 6);
        let ticks: Vec<&str> = svg
            .split("class=\"tick")
            .skip(1)
            .filter_map(|t| t.split('>').nth(1).and_then(|l| l.split('<').next()))
            .filter(|l| !l.chars().all(|c| c.is_ascii_digit()))
            .collect();
        let unique: std::collections::BTreeSet<&&str> = ticks.iter().collect();
        assert_eq!(unique.len(), ticks.len(), "no time label twice: {ticks:?}");
        assert!(ticks.contains(&"now") && ticks.iter().any(|t| t.contains(':')), "hours on a first day: {ticks:?}");
        // The first marks are not on the left edge: the points spread across the width.
        let xs: Vec<f64> = svg
            .split("class=\"mark\" cx=\"")
            .skip(1)
            .filter_map(|t| t.split('"').next().and_then(|x| x.parse().ok()))
            .collect();
        // (the two points; the key under the chart draws its own mark)
        assert!(xs.len() >= 2 && xs[..2].iter().all(|x| *x > LEFT + 10.0), "{xs:?}");
        // A first session of two minutes spreads over the width, not into its last few pixels.
        let (svg, _) = confidence(&[ev(4, "2026-12-02T09:58:00.000Z"), ev(6, "2026-12-02T09:59:00.000Z")], now, 6);
        let xs: Vec<f64> = svg
            .split("class=\"mark\" cx=\"")
            .skip(1)
            .filter_map(|t| t.split('"').next().and_then(|x| x.parse().ok()))
            .collect();
        let plot_w = W - LEFT - RIGHT - 8.0;
        assert!(xs[0] < LEFT + 0.7 * plot_w && xs[1] - xs[0] > 0.15 * plot_w, "spread across the width: {xs:?}");
    }

    #[test]
    fn backticks_in_empty_chart_notes_become_code() {
        let off = work_mix(&[], false);
        assert!(off.contains("<code>devcoach set work_insights on</code>") && !off.contains('`'), "{off}");
        assert_eq!(code_spans("a `b` c `d"), "a <code>b</code> c `d");
    }

    #[test]
    fn per_day_draws_a_bar_for_each_busy_day() {
        let day = NaiveDate::from_ymd_opt(2026, 11, 30).expect("day");
        let days: Vec<(NaiveDate, u32)> =
            (0..14).map(|i| (day + Duration::days(i), u32::try_from(i % 3).expect("n"))).collect();
        let svg = per_day("Reviews", &days, "own", ("review", "reviews"));
        assert_eq!(svg.matches("<rect").count(), days.iter().filter(|d| d.1 > 0).count());
        assert!(svg.contains("Tue 1 Dec: 1 review<") && svg.contains("Wed 2 Dec: 2 reviews<"), "{svg}");
    }

    #[test]
    fn weekly_bins_by_monday_and_stacks() {
        let now = at("2026-11-30T12:00:00Z"); // a Monday
        let lessons = [
            point("2026-11-30T09:00:00Z", false, None, "a"),
            point("2026-11-29T09:00:00Z", false, None, "a"), // the Sunday before: last week
            point("2026-11-24T09:00:00Z", true, None, "b"),
            point("2025-01-01T00:00:00Z", false, None, "old"),
        ];
        let (svg, weeks) = weekly(&lessons, now, 4);
        assert_eq!(weeks, 4, "the first lesson is older than the window: the whole window");
        assert!(svg.contains("Week of 30 Nov 2026: 1 yours"), "{svg}");
        assert!(svg.contains("Week of 23 Nov 2026: 1 yours") && svg.contains("Week of 23 Nov 2026: 1 shared"), "{svg}");
        assert!(!svg.contains("2025"), "outside the window");
        assert!(!svg.contains('#'), "no colours inline");
        assert!(svg.contains(r#"<ul class="plot-legend">"#), "the key is HTML, under the chart");
    }

    #[test]
    fn charts_start_at_the_first_data_and_empty_ones_say_what_will_fill_them() {
        let now = at("2026-11-30T12:00:00Z");
        let recent = [point("2026-11-24T09:00:00Z", false, None, "a")];
        let (svg, weeks) = weekly(&recent, now, 26);
        assert_eq!(weeks, 8, "a new learner's chart is eight weeks, not twenty-six");
        assert_eq!(svg.matches("text-anchor=\"middle\"").count(), 4, "a date every second week: {svg}");
        let (none, weeks) = weekly(&[], now, 26);
        assert_eq!(weeks, 0);
        assert!(none.contains("plot-empty") && !none.contains("<svg"), "{none}");
        let months = feedback_mix(&recent, now, 12);
        assert_eq!(months.matches("text-anchor=\"middle\"").count(), 3, "three months, not twelve: {months}");
        assert!(feedback_mix(&[], now, 12).contains("will be drawn here"));
        assert!(confidence(&[], now, 6).0.contains("will be drawn here"));
        assert!(coverage(&[], &HashMap::new(), 10).0.contains("plot-empty"));
        assert!(calibration(&[]).contains("plot-empty") && !calibration(&[]).contains("0 groups"));
    }

    #[test]
    fn feedback_months_and_confidence_steps() {
        let now = at("2026-11-30T12:00:00Z");
        let lessons = [
            point("2026-11-02T09:00:00Z", false, Some(Feedback::Know), "a"),
            point("2026-11-03T09:00:00Z", false, Some(Feedback::DontKnow), "a"),
            point("2026-10-03T09:00:00Z", false, None, "a"),
            point("2026-10-04T09:00:00Z", true, Some(Feedback::Know), "a"),
        ];
        let svg = feedback_mix(&lessons, now, 3);
        assert!(svg.contains("Nov 2026: 1 knew it") && svg.contains("Nov 2026: 1 couldn't follow"), "{svg}");
        assert!(
            svg.contains("Oct 2026: 1 no answer") && !svg.contains("Oct 2026: 1 knew it"),
            "shared lessons are not answers"
        );

        let ev = |topic: &str, v: i64, when: &str| Evidence {
            topic: topic.into(),
            delta: None,
            value_after: Some(v),
            cause: devcoach_core::evidence::EvidenceCause::Manual,
            lesson_id: None,
            detail: None,
            at: when.into(),
        };
        let log = [
            ev("rust", 4, "2026-11-01T00:00:00.000Z"),
            ev("rust", 5, "2026-11-15T00:00:00.000Z"),
            ev("go<", 7, "2026-11-20T00:00:00.000Z"),
        ];
        let (svg, topics) = confidence(&log, now, 6);
        assert_eq!(topics, ["rust", "go<"]);
        assert!(svg.contains("rust: 5/10 now") && svg.contains("go&lt;"), "{svg}");
        assert!(svg.contains(" H") && svg.contains(" V"), "step lines");
        // Each line has its own marker shape as well as its colour, keyed under the chart.
        assert!(svg.contains(r#"<g class="series s-0">"#) && svg.contains(r#"<g class="series s-1">"#));
        assert!(svg.contains("<circle class=\"mark\"") && svg.contains("<rect class=\"mark\""), "{svg}");
        assert!(svg.contains("rust 5/10</li>"), "{svg}");
        // Dates along the bottom, not only the first one and "now".
        assert!(svg.matches("class=\"tick").count() >= 6 + 5, "{svg}");
    }

    #[test]
    fn coverage_marks_topics_off_the_map() {
        let lessons =
            [point("2026-11-02T09:00:00Z", false, None, "rust"), point("2026-11-02T09:00:00Z", false, None, "css")];
        let known = HashMap::from([("rust".to_owned(), 6), ("go".to_owned(), 3)]);
        let (svg, covered, total) = coverage(&lessons, &known, 10);
        assert_eq!((covered, total), (1, 2));
        assert!(svg.contains("1 lesson · your number 6/10") && svg.contains("not on your map"), "{svg}");
        assert!(!svg.contains("more topic"), "all shown: {svg}");
        // More topics than rows: the bars say how many are left out.
        let (svg, _, _) = coverage(&lessons, &known, 1);
        assert_eq!(svg.matches("<li>").count(), 1);
        assert!(svg.contains("The 1 most taught; 1 more topic not shown."), "{svg}");
    }

    #[test]
    fn nice_scales() {
        assert_eq!(scale(0), (1, 1));
        assert_eq!(scale(7), (8, 2));
        assert_eq!(scale(23), (25, 5));
        assert_eq!(scale(300), (320, 64));
    }
}
