//! Know-your-customer sources (issue 70) for the domain's ports.
//!
//! - [`serpro`]: Serpro's Consulta CPF, the CPF's status at the Receita Federal ([`domain::kyc::cpf_status::CpfStatus`]).
//!
//! Development's answers of the CPF's status are set per CPF and kept in PostgreSQL, so that
//! every instance answers alike: they live in `adapters-postgres` (`PgSandboxCpfStatus`).

pub mod serpro;
