//! The leak scan against the whole shipped vocabulary: every name and alias is caught in every
//! case, spelling (spaces, hyphens, underscores) and ending, inside ordinary sentences; and a name
//! the learner typed (in any of its spellings) is never flagged.

use devcoach_practice::{Toolbox, scan_leaks};
use proptest::prelude::*;

fn title_case(s: &str) -> String {
    s.split(' ')
        .map(|w| {
            let mut c = w.chars();
            c.next().map_or_else(String::new, |f| f.to_uppercase().collect::<String>() + c.as_str())
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The spellings a reply might use for `name`.
fn variants(name: &str) -> Vec<String> {
    let mut out = vec![
        name.to_owned(),
        name.to_uppercase(),
        title_case(name),
        name.replace(' ', "-"),
        name.replace(' ', "_"),
        name.replace(' ', "  "),
    ];
    let last = name.chars().last().unwrap_or(' ');
    if last.is_ascii_alphabetic() && last != 's' {
        out.push(format!("{name}s"));
        out.push(format!("{}S", name.to_uppercase()));
    }
    if last.is_ascii_alphabetic() && !name.ends_with('e') && !name.ends_with('y') {
        out.push(format!("{name}ing"));
        out.push(format!("{name}ed"));
    }
    // Forms that are everyday English first (`tried`) are left alone on purpose.
    out.retain(|v| {
        let last = v.rsplit([' ', '-', '_']).next().unwrap_or(v).to_ascii_lowercase();
        !devcoach_practice::detect::names::ORDINARY_WORDS.contains(&last.as_str())
    });
    out
}

#[test]
fn every_name_in_every_spelling_is_caught() {
    let toolbox = Toolbox::builtin();
    let mut checked = 0;
    for entry in toolbox.entries() {
        for name in entry.names() {
            for variant in variants(name) {
                for sentence in
                    [variant.clone(), format!("Have you thought about {variant}?"), format!("({variant}), maybe.")]
                {
                    let hits = scan_leaks(toolbox, &sentence, &[], None);
                    // A longer name that contains this one may win (its own test covers it);
                    // either way the reply is bounced and the hit is inside the variant.
                    assert!(!hits.is_empty(), "{} not caught in {sentence:?}", entry.id);
                    let own = hits.iter().any(|h| h.id == entry.id);
                    let longer = hits.iter().any(|h| h.text.len() > variant.len());
                    assert!(own || longer, "{}: {sentence:?} gave {hits:?}", entry.id);
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 4000, "{checked}");
}

#[test]
fn a_name_the_learner_typed_is_theirs_in_every_spelling() {
    let toolbox = Toolbox::builtin();
    for entry in toolbox.entries() {
        let learner = format!("req: I want to try {}", entry.name.to_uppercase());
        for name in entry.names() {
            let reply = format!("Why would {} help here?", title_case(&name.replace(' ', "-")));
            let hits = scan_leaks(toolbox, &reply, &[&learner], None);
            assert!(
                hits.iter().all(|h| h.id != entry.id),
                "{}: {reply:?} flagged after the learner named it",
                entry.id
            );
        }
    }
}

/// Plain sentences with no vocabulary in them are never flagged.
#[test]
fn plain_socratic_replies_are_clean() {
    let toolbox = Toolbox::builtin();
    for reply in [
        "What does the output look like for the second example?",
        "Which comparisons do you repeat when you trace it by hand?",
        "Good. What would you store between steps so you never start over?",
        "Before code: what do you know about the order of the values?",
    ] {
        let hits = scan_leaks(toolbox, reply, &[], None);
        assert!(hits.is_empty(), "{reply:?}: {hits:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Random casing per letter, random separators and random prose around any name.
    #[test]
    fn random_spellings_in_random_prose(
        pick in 0usize..10_000,
        caps in proptest::collection::vec(any::<bool>(), 64),
        sep in prop_oneof![Just(" "), Just("-"), Just("_"), Just(" - "), Just("\n")],
        before in "[a-z]{0,8}( [a-z]{1,8}){0,4}",
        after in "[.,;:!?)]?( [a-z]{1,8}){0,4}",
    ) {
        let toolbox = Toolbox::builtin();
        let names: Vec<(&str, &str)> = toolbox.entries().iter().flat_map(|e| e.names().map(move |n| (e.id.as_str(), n))).collect();
        let (id, name) = names[pick % names.len()];
        let spelled: String = name
            .replace(' ', sep)
            .chars()
            .zip(caps.iter().cycle())
            .map(|(c, up)| if *up { c.to_ascii_uppercase() } else { c })
            .collect();
        let reply = format!("{before} {spelled}{after}");
        let hits = scan_leaks(toolbox, &reply, &[], None);
        prop_assert!(
            hits.iter().any(|h| h.id == id || h.text.len() > spelled.len()),
            "{id} not caught in {reply:?}: {hits:?}"
        );
        let learner = format!("maybe {name}?");
        let exempt = scan_leaks(toolbox, &reply, &[&learner], None);
        prop_assert!(exempt.iter().all(|h| h.id != id), "{id} flagged after the learner typed it: {reply:?}");
    }
}
