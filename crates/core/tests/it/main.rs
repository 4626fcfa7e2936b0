//! The core's integration tests: formats checked against data the TypeScript devcoach made, and
//! property tests of the codecs.

mod calibration_sim;
mod fsrs_fit;
mod fsrs_reference;
mod knowledge_sim;
mod limits_table;
mod share_browser;
mod share_fixtures;
mod share_props;
mod work_patterns;

use std::path::{Path, PathBuf};

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

/// splitmix64: the simulations' deterministic draws, no dependency.
pub struct Rng(pub u64);

impl Rng {
    /// A draw in [0, 1) from 21 random bits.
    // An endless source of draws, not an iterator: nothing would call `take` or `collect` on it.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        f64::from(u32::try_from(z >> 43).expect("21 bits")) / f64::from(1u32 << 21)
    }

    /// A standard normal draw (Box–Muller).
    pub fn normal(&mut self) -> f64 {
        let u = self.next().max(1e-12);
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * self.next()).cos()
    }
}

devcoach_core::no_forgotten_test_files!();
