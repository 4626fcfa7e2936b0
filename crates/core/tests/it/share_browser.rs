//! Codes we encode decode in a real browser, with nothing but `DecompressionStream("deflate-raw")`
//! (what the share page does). Needs Chromium: `scripts/test.sh` installs Debian's package, or set
//! `DEVCOACH_TEST_CHROMIUM` to a Chromium binary.

use std::path::PathBuf;
use std::process::Command;

use devcoach_core::share::encode_code;
use devcoach_core::share::payload::SharedLesson;
use serde_json::Value;

use crate::fixtures;

fn chromium() -> PathBuf {
    if let Some(p) = std::env::var_os("DEVCOACH_TEST_CHROMIUM") {
        return p.into();
    }
    let default = PathBuf::from("/usr/bin/chromium");
    assert!(
        default.exists(),
        "Chromium is not installed: run scripts/test.sh (it installs Debian's chromium), or set DEVCOACH_TEST_CHROMIUM"
    );
    default
}

const PAGE: &str = r#"<!doctype html><html><body><pre id="out">pending</pre><script>
const codes = __CODES__;
async function decode(code) {
  const b64 = code.slice(code.lastIndexOf(':') + 1).replace(/-/g, '+').replace(/_/g, '/');
  const padded = b64 + '='.repeat((4 - b64.length % 4) % 4);
  const bytes = Uint8Array.from(atob(padded), c => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
  return JSON.parse(await new Response(stream).text());
}
Promise.all(codes.map(decode)).then(
  r => { document.getElementById('out').textContent = JSON.stringify(r); },
  e => { document.getElementById('out').textContent = 'ERROR ' + e; });
</script></body></html>"#;

#[test]
fn our_codes_decode_in_chromium() {
    let cases: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(fixtures().join("share/share-codes-public.json")).expect("fixture"),
    )
    .expect("json");
    let payloads: Vec<SharedLesson> =
        cases.iter().map(|c| SharedLesson::from_json(&c["payload"]).expect("payload")).collect();
    let codes: Vec<String> = payloads.iter().map(encode_code).collect();
    let tmp = tempfile::TempDir::new().expect("tmp");
    let page = tmp.path().join("decode.html");
    std::fs::write(&page, PAGE.replace("__CODES__", &serde_json::to_string(&codes).expect("json"))).expect("page");
    let out = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--virtual-time-budget=10000",
        ])
        .arg(format!("--user-data-dir={}", tmp.path().join("profile").display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs");
    let dom = String::from_utf8_lossy(&out.stdout);
    let Some(start) = dom.find("<pre id=\"out\">").map(|i| i + "<pre id=\"out\">".len()) else {
        panic!(
            "no output element:
{dom}
{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let end = dom[start..].find("</pre>").map(|i| start + i).expect("end of output");
    let text = dom[start..end].replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&");
    assert!(!text.starts_with("ERROR") && text != "pending", "the browser could not decode: {text}");
    let decoded: Vec<Value> = serde_json::from_str(&text).expect("decoded JSON");
    assert_eq!(decoded.len(), payloads.len());
    for (got, want) in decoded.iter().zip(&payloads) {
        assert_eq!(got, &want.to_json());
    }
}
