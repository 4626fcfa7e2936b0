//! Settings rows.

use devcoach_core::settings::{SettingUpdate, Settings};
use rusqlite::{Connection, OptionalExtension, params};

use crate::{Result, Store};

pub(crate) fn read(conn: &Connection) -> Result<Settings> {
    let mut stmt = conn.prepare_cached("SELECT key, value FROM settings")?;
    let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
    let rows = rows.collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(Settings::from_rows(rows.iter().map(|(k, v)| (k.as_str(), v.as_str()))))
}

/// One of our own settings (`ext_settings`), which the original never reads.
pub(crate) fn read_setting(conn: &Connection, key: &str) -> rusqlite::Result<Option<String>> {
    conn.prepare_cached("SELECT value FROM ext_settings WHERE key = ?1")?.query_row([key], |r| r.get(0)).optional()
}

/// Sets one of our own settings.
pub(crate) fn write_setting(conn: &Connection, key: &str, value: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO ext_settings (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    )?
    .execute(params![key, value])?;
    Ok(())
}

/// `ext_settings` key of the page share links point at (ours: the original has one fixed page).
pub(crate) const LINK_BASE_KEY: &str = "share_link_base";

/// The page share links point at: the setting when it reads as one, else the default.
pub(crate) fn link_base(conn: &Connection) -> rusqlite::Result<String> {
    let stored = read_setting(conn, LINK_BASE_KEY)?;
    Ok(stored
        .and_then(|s| devcoach_core::share::text::parse_link_base(&s).ok().flatten())
        .unwrap_or_else(|| devcoach_core::share::text::DEFAULT_LINK_BASE.to_owned()))
}

impl Store {
    pub fn settings(&self) -> Result<Settings> {
        read(self.conn())
    }

    /// The page share links point at (`share_link_base`, documented default
    /// [`DEFAULT_LINK_BASE`](devcoach_core::share::text::DEFAULT_LINK_BASE)).
    pub fn share_link_base(&self) -> Result<String> {
        Ok(link_base(self.conn())?)
    }

    /// Sets (or with `None` clears, back to the default) the page share links point at; the
    /// address is validated by `parse_link_base` first.
    pub fn set_share_link_base(&mut self, base: Option<&str>) -> Result<()> {
        self.write(|tx| {
            match base {
                Some(b) => write_setting(tx, LINK_BASE_KEY, b)?,
                None => {
                    tx.execute("DELETE FROM ext_settings WHERE key = ?1", [LINK_BASE_KEY])?;
                }
            }
            Ok(())
        })
    }

    /// Writes one validated setting and returns the settings now in force.
    pub fn apply_setting(&mut self, update: &SettingUpdate) -> Result<Settings> {
        self.write(|tx| {
            store_setting(tx, update)?;
            read(tx)
        })
    }
}

/// Writes one validated setting (inside the caller's transaction).
pub(crate) fn store_setting(tx: &rusqlite::Connection, update: &SettingUpdate) -> rusqlite::Result<()> {
    tx.execute(
        "INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        params![update.key.as_str(), update.stored],
    )
    .map(drop)
}
