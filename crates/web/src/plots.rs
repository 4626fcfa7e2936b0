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

/// Lessons per week over the last `weeks` weeks: own and shared, stacked.
pub(crate) fn weekly(lessons: &[LessonPoint], now: DateTime<Utc>, weeks: usize) -> String {
    let last = week_start(now.date_naive());
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
        if i % 4 == 0 || (i + 1 == weeks && i % 4 >= 2) {
            let day = first + Duration::weeks(i as i64);
            let _ = write!(
                out,
                r#"<text class="tick" x="{:.1}" y="{}" text-anchor="middle">{}</text>"#,
                x + bw / 2.0,
                H - 8.0,
                day.format("%-d %b")
            );
        }
    }
    legend(&mut out, &[("col own", "yours"), ("col shared", "shared with you")], W - 220.0);
    out.push_str("</svg>");
    out
}

fn legend(out: &mut String, items: &[(&str, &str)], x0: f64) {
    let mut x = x0;
    for (class, label) in items {
        let _ = write!(
            out,
            r#"<rect class="{class}" x="{x:.1}" y="2" width="10" height="10" rx="2"/><text class="legend" x="{:.1}" y="11">{}</text>"#,
            x + 14.0,
            esc(label)
        );
        x += 18.0 + 7.0 * label.chars().count() as f64;
    }
}

/// Answers per month over the last `months` months, stacked by kind.
pub(crate) fn feedback_mix(lessons: &[LessonPoint], now: DateTime<Utc>, months: usize) -> String {
    let month_index = |d: NaiveDate| d.year() * 12 + i32::try_from(d.month0()).unwrap_or(0);
    let last = month_index(now.date_naive());
    let first = last - i32::try_from(months).unwrap_or(1) + 1;
    let mut counts = vec![[0u32; 4]; months];
    for l in lessons.iter().filter(|l| !l.imported) {
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
        if i % 2 == 0 || (i + 1 == months && i % 2 == 1 && months > 2) {
            let short = label.split(' ').next().unwrap_or_default();
            let _ = write!(
                out,
                r#"<text class="tick" x="{:.1}" y="{}" text-anchor="middle">{short}</text>"#,
                x + bw / 2.0,
                H - 8.0
            );
        }
    }
    legend(
        &mut out,
        &[(classes[0], names[0]), (classes[1], names[1]), (classes[2], names[2]), (classes[3], names[3])],
        LEFT + 4.0,
    );
    out.push_str("</svg>");
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
    let start = topics.iter().filter_map(|(_, pts)| pts.first().map(|p| p.0)).min().unwrap_or(now - Duration::days(30));
    let span = (now - start).num_seconds().max(86_400) as f64;
    let plot_h = H - TOP - BOTTOM;
    let plot_w = W - LEFT - RIGHT - 110.0;
    let x_of = |t: DateTime<Utc>| LEFT + (t - start).num_seconds() as f64 / span * plot_w;
    let y_of = |v: i64| TOP + plot_h - v.clamp(0, 10) as f64 / 10.0 * plot_h;
    let mut out = String::new();
    open(&mut out, "Confidence per topic over time", H);
    y_axis(&mut out, 10, 2, plot_h);
    // End labels, nudged apart so equal values stay readable.
    let mut labels: Vec<(f64, usize, String)> = Vec::new();
    for (i, (topic, pts)) in topics.iter().enumerate() {
        let mut d = String::new();
        for (j, (at, v)) in pts.iter().enumerate() {
            let (x, y) = (x_of(*at), y_of(*v));
            if j == 0 {
                let _ = write!(d, "M{x:.1},{y:.1}");
            } else {
                // A step: the value holds until the next change.
                let _ = write!(d, " H{x:.1} V{y:.1}");
            }
        }
        if let Some((_, v)) = pts.last() {
            let _ = write!(d, " H{:.1}", x_of(now));
            let _ =
                write!(out, r#"<path class="line line-{i}" d="{d}"><title>{}: {v}/10 now</title></path>"#, esc(topic));
            labels.push((y_of(*v) + 4.0, i, format!("{} {v}", esc(topic))));
        }
    }
    labels.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut last_y = f64::MIN;
    for (y, i, text) in labels {
        let y = y.max(last_y + 13.0);
        last_y = y;
        let _ = write!(
            out,
            r#"<text class="legend line-label line-{i}" x="{:.1}" y="{y:.1}">{text}</text>"#,
            x_of(now) + 6.0
        );
    }
    let _ = write!(out, r#"<text class="tick" x="{LEFT}" y="{}">{}</text>"#, H - 8.0, start.format("%-d %b %Y"));
    let _ = write!(out, r#"<text class="tick" x="{:.1}" y="{}" text-anchor="end">now</text>"#, LEFT + plot_w, H - 8.0);
    out.push_str("</svg>");
    (out, topics.iter().map(|(t, _)| (*t).to_owned()).collect())
}

/// Lessons per topic next to the knowledge map: which topics were taught, and how well they
/// are known now. `known` maps a topic to its confidence.
pub(crate) fn coverage(lessons: &[LessonPoint], known: &HashMap<String, i64>, rows: usize) -> (String, usize, usize) {
    let mut taught: HashMap<&str, u32> = HashMap::new();
    for l in lessons {
        *taught.entry(l.topic.as_str()).or_default() += 1;
    }
    let mut topics: Vec<(&str, u32)> = taught.iter().map(|(t, n)| (*t, *n)).collect();
    topics.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    let covered = known.keys().filter(|t| taught.contains_key(t.as_str())).count();
    let shown: Vec<(&str, u32)> = topics.into_iter().take(rows).collect();
    let row_h = 22.0;
    let height = TOP + row_h * shown.len().max(1) as f64 + 8.0;
    let max = shown.iter().map(|(_, n)| *n).max().unwrap_or(1);
    let label_w = 150.0;
    let bar_w = W - label_w - RIGHT - 120.0;
    let mut out = String::new();
    open(&mut out, "Lessons per topic, with confidence", height);
    for (i, (topic, n)) in shown.iter().enumerate() {
        let y = TOP + row_h * i as f64;
        let w = f64::from(*n) / f64::from(max) * bar_w;
        let (class, conf) = match known.get(*topic) {
            Some(c) => ("col own", format!("{c}/10")),
            None => ("col shared", "not on your map".to_owned()),
        };
        let name: String = topic.chars().take(22).collect();
        let _ = write!(
            out,
            r#"<text class="legend" x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            label_w - 8.0,
            y + 14.0,
            esc(&name)
        );
        let _ = write!(
            out,
            r#"<rect class="{class}" x="{label_w}" y="{:.1}" width="{w:.1}" height="14" rx="2"><title>{}: {n} lessons</title></rect>"#,
            y + 3.0,
            esc(topic)
        );
        let _ = write!(
            out,
            r#"<text class="tick" x="{:.1}" y="{:.1}">{n} · {}</text>"#,
            label_w + w + 6.0,
            y + 14.0,
            esc(&conf)
        );
    }
    out.push_str("</svg>");
    (out, covered, known.len())
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
    let size = H + 40.0;
    let plot = size - TOP - BOTTOM;
    let (x0, x1) = (LEFT + 8.0, LEFT + 8.0 + plot);
    let px = |p: f64| x0 + p * plot;
    let py = |p: f64| TOP + plot - p * plot;
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<svg class="plot" viewBox="0 0 {W} {size}" role="img" aria-label="Predicted and observed recall"><title>Predicted and observed recall</title>"#
    );
    for t in [0.0, 0.25, 0.5, 0.75, 1.0] {
        let _ =
            write!(out, r#"<line class="gridline" x1="{x0:.1}" x2="{x1:.1}" y1="{:.1}" y2="{:.1}"/>"#, py(t), py(t));
        let _ = write!(
            out,
            r#"<text class="tick" x="{:.1}" y="{:.1}" text-anchor="end">{:.0}%</text>"#,
            x0 - 6.0,
            py(t) + 4.0,
            t * 100.0
        );
        let _ = write!(
            out,
            r#"<text class="tick" x="{:.1}" y="{:.1}" text-anchor="middle">{:.0}%</text>"#,
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
    let _ = write!(out, r#"<text class="legend" x="{:.1}" y="{:.1}">predicted recall →</text>"#, x1 + 12.0, py(0.0));
    let _ = write!(out, r#"<text class="legend" x="{:.1}" y="{:.1}">↑ recalled</text>"#, x1 + 12.0, py(1.0) + 10.0);
    let _ = write!(
        out,
        r#"<text class="tick" x="{:.1}" y="{:.1}">{shown} groups, {} reviews</text>"#,
        x1 + 12.0,
        py(0.5),
        reviews.len()
    );
    out.push_str("</svg>");
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
        assert!(calibration(&[]).contains("0 groups, 0 reviews"));
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
        let svg = weekly(&lessons, now, 4);
        assert!(svg.contains("Week of 30 Nov 2026: 1 yours"), "{svg}");
        assert!(svg.contains("Week of 23 Nov 2026: 1 yours") && svg.contains("Week of 23 Nov 2026: 1 shared"), "{svg}");
        assert!(!svg.contains("2025"), "outside the window");
        assert!(!svg.contains('#'), "no colours inline");
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
    }

    #[test]
    fn coverage_marks_topics_off_the_map() {
        let lessons =
            [point("2026-11-02T09:00:00Z", false, None, "rust"), point("2026-11-02T09:00:00Z", false, None, "css")];
        let known = HashMap::from([("rust".to_owned(), 6), ("go".to_owned(), 3)]);
        let (svg, covered, total) = coverage(&lessons, &known, 10);
        assert_eq!((covered, total), (1, 2));
        assert!(svg.contains("1 · 6/10") && svg.contains("not on your map"), "{svg}");
    }

    #[test]
    fn nice_scales() {
        assert_eq!(scale(0), (1, 1));
        assert_eq!(scale(7), (8, 2));
        assert_eq!(scale(23), (25, 5));
        assert_eq!(scale(300), (320, 64));
    }
}
