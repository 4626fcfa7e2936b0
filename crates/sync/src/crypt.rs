//! The encrypted mode, in the age format: every file in the folder is encrypted to one X25519
//! key, and that key travels in the folder only inside `key.age`, itself encrypted with the
//! learner's passphrase (age's scrypt). A device joins by typing the passphrase once; from then
//! on it keeps the key in its own data folder and never needs the passphrase again.
//!
//! age authenticates what it decrypts: a file changed by anyone without the key fails to decrypt
//! and is refused whole.

use std::str::FromStr;

use age::secrecy::{ExposeSecret, SecretString};

use crate::SyncError;

/// The folder's key, as this device holds it.
pub struct Key {
    identity: age::x25519::Identity,
}

impl Key {
    pub fn generate() -> Self {
        Self { identity: age::x25519::Identity::generate() }
    }

    /// Reads a key kept by [`Key::secret`].
    pub fn parse(secret: &str) -> Result<Self, SyncError> {
        let identity = age::x25519::Identity::from_str(secret.trim())
            .map_err(|_| SyncError::Key("the sync key kept in this data folder is damaged".into()))?;
        Ok(Self { identity })
    }

    /// The key in age's text form (`AGE-SECRET-KEY-1…`), to keep in a private file.
    pub fn secret(&self) -> String {
        self.identity.to_string().expose_secret().to_owned()
    }

    /// The public half (`age1…`), which the folder's marker names so a changed key is noticed.
    pub fn recipient(&self) -> String {
        self.identity.to_public().to_string()
    }

    pub fn encrypt(&self, plain: &[u8]) -> Result<Vec<u8>, SyncError> {
        age::encrypt(&self.identity.to_public(), plain).map_err(|e| SyncError::Key(format!("encrypting failed: {e}")))
    }

    /// Decrypts a file of the folder; `None` when it is not for this key or was changed.
    pub fn decrypt(&self, sealed: &[u8]) -> Option<Vec<u8>> {
        age::decrypt(&self.identity, sealed).ok()
    }

    /// The key sealed with `passphrase`, for `key.age`.
    pub fn seal(&self, passphrase: &str) -> Result<Vec<u8>, SyncError> {
        let recipient = age::scrypt::Recipient::new(SecretString::from(passphrase.to_owned()));
        age::encrypt(&recipient, self.secret().as_bytes())
            .map_err(|e| SyncError::Key(format!("encrypting failed: {e}")))
    }

    /// Opens `key.age` with `passphrase`.
    pub fn unseal(sealed: &[u8], passphrase: &str) -> Result<Self, SyncError> {
        let mut identity = age::scrypt::Identity::new(SecretString::from(passphrase.to_owned()));
        // Never more work than a passphrase file devcoach writes would ask (a planted file with
        // an absurd work factor would hang the join).
        identity.set_max_work_factor(22);
        let plain = age::decrypt(&identity, sealed).map_err(|_| SyncError::WrongPassphrase)?;
        let text = String::from_utf8(plain).map_err(|_| SyncError::WrongPassphrase)?;
        Self::parse(&text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_opens_with_the_key_and_not_after_a_change() {
        let key = Key::generate();
        let sealed = key.encrypt(b"lessons").expect("encrypt");
        assert_eq!(key.decrypt(&sealed).as_deref(), Some(&b"lessons"[..]));
        assert!(Key::generate().decrypt(&sealed).is_none());
        let mut changed = sealed.clone();
        let last = changed.len() - 1;
        changed[last] ^= 1;
        assert!(key.decrypt(&changed).is_none());
    }

    #[test]
    fn the_key_travels_sealed_with_the_passphrase() {
        let key = Key::generate();
        let sealed = key.seal("correct horse").expect("seal");
        let opened = Key::unseal(&sealed, "correct horse").expect("unseal");
        assert_eq!(opened.recipient(), key.recipient());
        assert!(matches!(Key::unseal(&sealed, "wrong horse"), Err(SyncError::WrongPassphrase)));
    }
}
