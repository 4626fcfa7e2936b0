//! Settings rows.

use devcoach_core::settings::{SettingUpdate, Settings};
use rusqlite::{Connection, params};

use crate::{Result, Store};

pub(crate) fn read(conn: &Connection) -> Result<Settings> {
    let mut stmt = conn.prepare_cached("SELECT key, value FROM settings")?;
    let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
    let rows = rows.collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(Settings::from_rows(rows.iter().map(|(k, v)| (k.as_str(), v.as_str()))))
}

impl Store {
    pub fn settings(&self) -> Result<Settings> {
        read(self.conn())
    }

    /// Writes one validated setting and returns the settings now in force.
    pub fn apply_setting(&mut self, update: &SettingUpdate) -> Result<Settings> {
        self.write(|tx| {
            tx.execute(
                "INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                params![update.key.as_str(), update.stored],
            )?;
            read(tx)
        })
    }
}
