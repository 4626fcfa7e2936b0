//! The encrypted mode, in the age format: every file in the folder is encrypted to one X25519
//! key, and that key travels in the folder only inside `key.age`, itself encrypted with the
//! learner's passphrase (age's scrypt). A device joins by typing the passphrase once; from then
//! on it keeps the key in its own data folder and never needs the passphrase again.
//!
//! age authenticates what it decrypts, but not who encrypted it: anyone who reads the folder's
//! marker can encrypt to its public key. So every file also carries, inside the encryption, an
//! HMAC-SHA256 of its contents under a key derived from the folder's secret key, which only the
//! devices that hold that key can make; a file without a valid one is refused whole.

use std::str::FromStr;

use age::secrecy::{ExposeSecret, SecretString};
use hmac::{KeyInit, Mac};
use sha2::Sha256;

use crate::SyncError;
use crate::error::KeyProblem;

type HmacSha256 = hmac::Hmac<Sha256>;

/// The scrypt cost `key.age` is sealed with (log2 of N: 2^18, 256 MiB).
const SEAL_WORK_FACTOR: u8 = 18;

/// What every sealed file's contents start with once decrypted: this, then the 32-byte tag.
const SIGNED: &[u8; 8] = b"dcsmac01";

/// What a file is for, bound into its tag: one kind of file never passes for another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Changes,
    Device,
}

impl Role {
    fn label(self) -> &'static [u8] {
        match self {
            Self::Changes => b"changes",
            Self::Device => b"device",
        }
    }
}

/// Why a sealed file was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// It does not decrypt with this key: cut short, changed, or sealed to another key.
    Undecryptable,
    /// It decrypts, but carries no proof that a holder of the key wrote it.
    Unsigned,
    /// Its proof is wrong: made without the key, or its contents changed.
    Forged,
}

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
        let identity = age::x25519::Identity::from_str(secret.trim()).map_err(|_| KeyProblem::Damaged)?;
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
        Ok(age::encrypt(&self.identity.to_public(), plain).map_err(KeyProblem::Encrypting)?)
    }

    /// Decrypts a file of the folder; `None` when it is not for this key or was changed.
    pub fn decrypt(&self, sealed: &[u8]) -> Option<Vec<u8>> {
        age::decrypt(&self.identity, sealed).ok()
    }

    /// The tag of a file for `role`, ready for its contents; keyed by a key derived from the
    /// secret key (never the key itself).
    fn tagger(&self, role: Role) -> HmacSha256 {
        let secret = self.secret();
        let mut derive = <HmacSha256 as KeyInit>::new_from_slice(secret.as_bytes()).expect("HMAC takes any key length");
        derive.update(b"devcoach-sync tag key v1");
        let tag_key = derive.finalize().into_bytes();
        let mut mac = <HmacSha256 as KeyInit>::new_from_slice(&tag_key).expect("HMAC takes any key length");
        mac.update(role.label());
        mac.update(&[0]);
        mac
    }

    /// A file's contents, signed for `role` and encrypted: what only a holder of the key makes.
    pub fn seal_file(&self, role: Role, plain: &[u8]) -> Result<Vec<u8>, SyncError> {
        let mut signed = Vec::with_capacity(plain.len() + 40);
        signed.extend_from_slice(SIGNED);
        let mut tag = self.tagger(role);
        tag.update(plain);
        signed.extend_from_slice(&tag.finalize().into_bytes());
        signed.extend_from_slice(plain);
        self.encrypt(&signed)
    }

    /// A sealed file's contents, once both its encryption and its tag check out.
    pub fn open_file(&self, role: Role, sealed: &[u8]) -> Result<Vec<u8>, Refused> {
        let mut signed = self.decrypt(sealed).ok_or(Refused::Undecryptable)?;
        if signed.len() < 40 || &signed[..8] != SIGNED {
            return Err(Refused::Unsigned);
        }
        let plain = signed.split_off(40);
        let mut mac = self.tagger(role);
        mac.update(&plain);
        // Compared in constant time.
        mac.verify_slice(&signed[8..40]).map_err(|_| Refused::Forged)?;
        Ok(plain)
    }

    /// The key sealed with `passphrase`, for `key.age`.
    pub fn seal(&self, passphrase: &str) -> Result<Vec<u8>, SyncError> {
        let mut recipient = age::scrypt::Recipient::new(SecretString::from(passphrase.to_owned()));
        // A fixed cost (256 MiB, about a second), not one tuned to this machine: every device
        // can then refuse a key file that asks for more.
        recipient.set_work_factor(SEAL_WORK_FACTOR);
        Ok(age::encrypt(&recipient, self.secret().as_bytes()).map_err(KeyProblem::Encrypting)?)
    }

    /// Opens `key.age` with `passphrase`.
    pub fn unseal(sealed: &[u8], passphrase: &str) -> Result<Self, SyncError> {
        let mut identity = age::scrypt::Identity::new(SecretString::from(passphrase.to_owned()));
        // Never more work than a key file devcoach writes asks (a planted one asking for
        // gigabytes would otherwise take them, and then blame the passphrase). Older builds
        // tuned the cost to the machine; two steps of slack keep their folders opening.
        identity.set_max_work_factor(SEAL_WORK_FACTOR + 2);
        // Not an age file, or one changed since it was written: no passphrase would open it.
        let damaged = || SyncError::Key(KeyProblem::SealedDamaged);
        let decryptor = age::Decryptor::new_buffered(sealed).map_err(|_| damaged())?;
        let mut reader = decryptor.decrypt(std::iter::once(&identity as &dyn age::Identity)).map_err(|e| match e {
            age::DecryptError::ExcessiveWork { required, .. } => SyncError::Key(KeyProblem::TooCostly { required }),
            age::DecryptError::InvalidHeader | age::DecryptError::UnknownFormat | age::DecryptError::InvalidMac => {
                damaged()
            }
            _ => SyncError::WrongPassphrase,
        })?;
        // The passphrase opened the header: what does not read after it is damage.
        let mut plain = Vec::new();
        std::io::Read::read_to_end(&mut reader, &mut plain).map_err(|_| damaged())?;
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
    fn only_a_holder_of_the_key_makes_a_file_that_opens() {
        let key = Key::generate();
        let sealed = key.seal_file(Role::Changes, b"lessons").expect("seal");
        assert_eq!(key.open_file(Role::Changes, &sealed).as_deref(), Ok(&b"lessons"[..]));
        // Anyone can encrypt to the public half the marker names: that alone is refused.
        let recipient: age::x25519::Recipient = key.recipient().parse().expect("recipient");
        let plain = age::encrypt(&recipient, b"delete everything").expect("encrypt");
        assert_eq!(key.open_file(Role::Changes, &plain), Err(Refused::Unsigned));
        // A forger who copies the layout but not the key.
        let mut forged = SIGNED.to_vec();
        forged.extend_from_slice(&[7; 32]);
        forged.extend_from_slice(b"delete everything");
        let forged = age::encrypt(&recipient, &forged).expect("encrypt");
        assert_eq!(key.open_file(Role::Changes, &forged), Err(Refused::Forged));
        // Another folder's key, and one kind of file passed off as another.
        assert_eq!(Key::generate().open_file(Role::Changes, &sealed), Err(Refused::Undecryptable));
        assert_eq!(key.open_file(Role::Device, &sealed), Err(Refused::Forged));
    }

    #[test]
    fn a_key_file_asking_for_more_work_than_devcoach_sets_is_refused_before_the_work() {
        let key = Key::generate();
        let sealed = key.seal("correct horse").expect("seal");
        // The stanza names its cost in text (`-> scrypt <salt> 18`): a planted file asks for
        // 2^30 without anyone having paid for it.
        let text = String::from_utf8_lossy(&sealed).into_owned();
        let line = text.lines().find(|l| l.starts_with("-> scrypt ")).expect("scrypt stanza").to_owned();
        let planted_line = format!("{} 30", line.rsplit_once(' ').expect("cost").0);
        let planted = text.replacen(&line, &planted_line, 1).into_bytes();
        let started = std::time::Instant::now();
        let err = Key::unseal(&planted, "correct horse").err().expect("refused");
        assert!(err.to_string().contains("far more work"), "{err}");
        assert!(started.elapsed() < std::time::Duration::from_secs(5), "refused without doing the work");
    }

    #[test]
    fn the_key_travels_sealed_with_the_passphrase() {
        let key = Key::generate();
        let sealed = key.seal("correct horse").expect("seal");
        let opened = Key::unseal(&sealed, "correct horse").expect("unseal");
        assert_eq!(opened.recipient(), key.recipient());
        assert!(matches!(Key::unseal(&sealed, "wrong horse"), Err(SyncError::WrongPassphrase)));
        // A damaged key file is not the passphrase's fault.
        for damaged in [b"not an age file at all".to_vec(), sealed[..sealed.len() / 3].to_vec()] {
            match Key::unseal(&damaged, "correct horse") {
                Err(SyncError::Key(KeyProblem::SealedDamaged)) => {}
                other => panic!("a damaged key file: {:?}", other.map(|_| ())),
            }
        }
    }
}
