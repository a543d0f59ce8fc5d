//! A customer's personal columns, in one room. The seller's registration (`customers`) and every
//! proposal's copy of it (`proposal_customers`) hold the same columns; this module is the only
//! Rust that names them all: how they read into the domain's [`CustomerSnapshot`], how a route's data
//! writes them (the parts of the one-statement writes of routes 3, 5 and 6), how the proposals'
//! copies follow the registration, and what anonymisation leaves in them; and the address's part
//! of those writes. A personal field is added here and in its migration (the read model's document, the
//! export and the back office's view take every column of the rows as stored).

use crate::composed::Part;
use chrono::{DateTime, NaiveDate, Utc};
use diesel::QueryableByName;
use diesel::sql_types::{Bool, Date, Int8, Nullable, Text, Timestamptz};
use domain::customers::{AddressData, CustomerData, CustomerSnapshot, PersonGender, Seller};
use domain::stamp::ChangeStamp;
use domain::values::{MaritalStatus, ProposalStatus, StoredValueError};
use serde::{Deserialize, Serialize};

/// The personal columns of a registration or of a proposal's copy, read from a statement's row
/// or from a row's `to_jsonb` (the read model's document keeps the copy so).
#[derive(Debug, Clone, PartialEq, QueryableByName, Serialize, Deserialize)]
pub struct PersonColumns {
    #[diesel(sql_type = Text)]
    pub cpf: String,
    #[diesel(sql_type = Text)]
    pub nome_completo: String,
    #[diesel(sql_type = Nullable<Text>)]
    pub nome_social: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    pub nome_mae: Option<String>,
    #[diesel(sql_type = Date)]
    pub data_nascimento: NaiveDate,
    #[diesel(sql_type = Text)]
    pub sexo: String,
    #[diesel(sql_type = Nullable<Text>)]
    pub estado_civil: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    pub nacionalidade: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    pub celular: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    pub telefone_fixo: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    pub email: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    pub profissao: Option<String>,
    #[diesel(sql_type = Nullable<Int8>)]
    pub salario: Option<i64>,
    #[diesel(sql_type = Bool)]
    pub trabalhando: bool,
    #[diesel(sql_type = Bool)]
    pub servidor_publico: bool,
    #[diesel(sql_type = Bool)]
    pub pep: bool,
    #[diesel(sql_type = Bool)]
    pub afastado: bool,
    #[diesel(sql_type = Bool)]
    pub medicamento: bool,
    #[diesel(sql_type = Nullable<Text>)]
    pub medicamento_descricao: Option<String>,
    #[diesel(sql_type = Bool)]
    pub e_analfabeto: bool,
    #[diesel(sql_type = Nullable<Text>)]
    pub cargo_politico: Option<String>,
}

/// The table a stored value error names (the copy holds the same columns and spellings).
const TABLE: &str = "customers";

impl TryFrom<PersonColumns> for CustomerSnapshot {
    type Error = StoredValueError;

    /// The gender and the marital status read as their choices (a stored value none spells is
    /// an error naming where).
    fn try_from(r: PersonColumns) -> Result<Self, StoredValueError> {
        Ok(CustomerSnapshot {
            cpf: r.cpf,
            full_name: r.nome_completo,
            social_name: r.nome_social,
            mother_name: r.nome_mae,
            birth_date: r.data_nascimento,
            gender: PersonGender::from_stored(&r.sexo, TABLE, "sexo")?,
            marital_status: r
                .estado_civil
                .as_deref()
                .map(|m| MaritalStatus::from_stored(m, TABLE, "estado_civil"))
                .transpose()?,
            nationality: r.nacionalidade,
            cell_phone: r.celular,
            landline: r.telefone_fixo,
            email: r.email,
            profession: r.profissao,
            salary: r.salario,
            working: r.trabalhando,
            public_servant: r.servidor_publico,
            pep: r.pep,
            absent: r.afastado,
            medication: r.medicamento,
            medication_description: r.medicamento_descricao,
            illiterate: r.e_analfabeto,
            political_office: r.cargo_politico,
        })
    }
}

/// Who changed a row and when (`alterado_por`, `criado_em`, `alterado_em`).
#[derive(Debug, Clone, PartialEq, QueryableByName, Serialize, Deserialize)]
pub struct StampColumns {
    #[diesel(sql_type = Text)]
    pub alterado_por: String,
    #[diesel(sql_type = Timestamptz)]
    pub criado_em: DateTime<Utc>,
    #[diesel(sql_type = Timestamptz)]
    pub alterado_em: DateTime<Utc>,
}

impl From<StampColumns> for ChangeStamp {
    fn from(r: StampColumns) -> Self {
        ChangeStamp {
            changed_by: r.alterado_por,
            created_at: r.criado_em,
            updated_at: r.alterado_em,
        }
    }
}

/// The personal columns, in the order every statement here lists them, each qualified by
/// `$prefix` (`""` or `"r."`).
macro_rules! person_columns {
    ($p:literal) => {
        concat!(
            $p,
            "cpf, ",
            $p,
            "nome_completo, ",
            $p,
            "data_nascimento, ",
            $p,
            "sexo, ",
            $p,
            "estado_civil, ",
            $p,
            "nacionalidade, ",
            $p,
            "celular, ",
            $p,
            "telefone_fixo, ",
            $p,
            "email, ",
            $p,
            "profissao, ",
            $p,
            "salario, ",
            $p,
            "trabalhando, ",
            $p,
            "servidor_publico, ",
            $p,
            "pep, ",
            $p,
            "afastado, ",
            $p,
            "medicamento, ",
            $p,
            "medicamento_descricao, ",
            $p,
            "e_analfabeto, ",
            $p,
            "cargo_politico, ",
            $p,
            "nome_social, ",
            $p,
            "nome_mae"
        )
    };
}

/// `registration`, the first part of a write statement: creates the seller's registration of the
/// customer, or updates the seller's own one by CPF: fields not sent keep their stored value (a
/// new registration stores null or false for them). Another seller's registration is another row.
/// With an address, a registration without one is given its address's id here, from the
/// addresses' sequence, so that the address is written beside it in the same statement
/// (`customers::address`).
pub(crate) fn registration<'a>(
    c: &'a CustomerData,
    seller: Seller,
    changed_by: &'a str,
    with_address: bool,
) -> Part<'a> {
    Part::new(
        "registration",
        "registration AS ( \
         INSERT INTO customers (cpf, nome_completo, data_nascimento, sexo, estado_civil, nacionalidade, celular, \
             telefone_fixo, email, profissao, salario, trabalhando, servidor_publico, pep, afastado, medicamento, \
             medicamento_descricao, e_analfabeto, alterado_por, aplicacao_vendedor, id_parceiro_vendedor, nome_social, \
             nome_mae, id_endereco) \
         VALUES ({cpf}, {nome_completo}, {data_nascimento}, {sexo}, {estado_civil}, {nacionalidade}, {celular}, \
             {telefone_fixo}, {email}, {profissao}, {salario}, COALESCE({trabalhando}, false), \
             COALESCE({servidor_publico}, false), COALESCE({pep}, false), COALESCE({afastado}, false), \
             COALESCE({medicamento}, false), {medicamento_descricao}, COALESCE({e_analfabeto}, false), {alterado_por}, \
             {aplicacao_vendedor}, {id_parceiro_vendedor}, {nome_social}, {nome_mae}, \
             CASE WHEN {com_endereco} THEN nextval('addresses_id_seq') END) \
         ON CONFLICT ON CONSTRAINT customers_seller_cpf_key DO UPDATE SET \
             nome_completo = EXCLUDED.nome_completo, data_nascimento = EXCLUDED.data_nascimento, sexo = EXCLUDED.sexo, \
             estado_civil = COALESCE(EXCLUDED.estado_civil, customers.estado_civil), \
             nacionalidade = COALESCE(EXCLUDED.nacionalidade, customers.nacionalidade), \
             celular = COALESCE(EXCLUDED.celular, customers.celular), \
             telefone_fixo = COALESCE(EXCLUDED.telefone_fixo, customers.telefone_fixo), \
             email = COALESCE(EXCLUDED.email, customers.email), profissao = COALESCE(EXCLUDED.profissao, customers.profissao), \
             salario = COALESCE(EXCLUDED.salario, customers.salario), \
             trabalhando = COALESCE({trabalhando}, customers.trabalhando), \
             servidor_publico = COALESCE({servidor_publico}, customers.servidor_publico), \
             pep = COALESCE({pep}, customers.pep), afastado = COALESCE({afastado}, customers.afastado), \
             medicamento = COALESCE({medicamento}, customers.medicamento), \
             medicamento_descricao = COALESCE(EXCLUDED.medicamento_descricao, customers.medicamento_descricao), \
             e_analfabeto = COALESCE({e_analfabeto}, customers.e_analfabeto), \
             nome_social = COALESCE(EXCLUDED.nome_social, customers.nome_social), \
             nome_mae = COALESCE(EXCLUDED.nome_mae, customers.nome_mae), \
             id_endereco = COALESCE(customers.id_endereco, EXCLUDED.id_endereco), \
             alterado_por = EXCLUDED.alterado_por, alterado_em = now() \
         RETURNING *)",
    )
    .value("cpf", c.cpf.as_str())
    .value("nome_completo", c.full_name.as_str())
    .value("data_nascimento", c.birth_date.date())
    .value("sexo", c.gender.as_str())
    .value("estado_civil", c.marital_status.map(|m| m.as_str()))
    .value("nacionalidade", c.nationality.as_deref())
    .value("celular", c.cell_phone.as_ref().map(|p| p.as_str()))
    .value("telefone_fixo", c.landline.as_ref().map(|p| p.as_str()))
    .value("email", c.email.as_ref().map(|e| e.as_str()))
    .value("profissao", c.profession.as_deref())
    .value("salario", c.salary.map(|s| s.cents()))
    .value("trabalhando", c.working)
    .value("servidor_publico", c.public_servant)
    .value("pep", c.pep)
    .value("afastado", c.absent)
    .value("medicamento", c.medication)
    .value("medicamento_descricao", c.medication_description.as_deref())
    .value("e_analfabeto", c.illiterate)
    .value("alterado_por", changed_by)
    .value("aplicacao_vendedor", seller.application())
    .value("id_parceiro_vendedor", seller.partner_id())
    .value("nome_social", c.social_name.as_ref().map(|n| n.as_str()))
    .value("nome_mae", c.mother_name.as_ref().map(|n| n.as_str()))
    .value("com_endereco", with_address)
}

/// The proposal's copy's columns past its two keys: the person, the address, the stamp.
macro_rules! copy_columns {
    () => {
        concat!(
            $crate::person_columns::person_columns!(""),
            ", cep, endereco, numero, bairro, cidade, estado, complemento, alterado_por, criado_em, alterado_em"
        )
    };
}

/// `copied`: the new proposal's (`proposal`) copy of the registration and its address, as the
/// statement wrote them (its row answered for the proposal's document).
pub(crate) fn new_copy<'a>() -> Part<'a> {
    Part::text(concat!(
        "copied AS (INSERT INTO proposal_customers (id_proposta, id_cliente, ",
        copy_columns!(),
        ") SELECT p.id, r.id, ",
        person_columns!("r."),
        ", a.cep, a.endereco, a.numero, a.bairro, a.cidade, a.estado, a.complemento, \
         r.alterado_por, r.criado_em, r.alterado_em \
         FROM proposal p, registration r, address a RETURNING *)"
    ))
}

/// `refreshed`: the registration's earlier proposals still `NOVO` take its data (a correction
/// reaches them), and its address when one was written; a proposal that left NOVO keeps the copy
/// it had, and so does one an operation holds (a send renders from it): checked under the
/// proposal's row lock by `proposal_copy_refreshable` (migration 000037), so that a move or a claim
/// committing meanwhile is seen. The statement's own new proposal is not among them (a statement's
/// parts do not see each other's rows): `copied` writes it. It answers the copies refreshed, whose
/// documents the statement writes again (`read_model::refreshed_documents`).
pub(crate) fn refreshed_copies<'a>() -> Part<'a> {
    Part::new(
        "refreshed",
        concat!(
            "refreshed AS (UPDATE proposal_customers pc SET (",
            copy_columns!(),
            ") = (",
            person_columns!("r."),
            ", coalesce(a.cep, pc.cep), coalesce(a.endereco, pc.endereco), coalesce(a.numero, pc.numero), \
             coalesce(a.bairro, pc.bairro), coalesce(a.cidade, pc.cidade), coalesce(a.estado, pc.estado), \
             CASE WHEN a.id IS NULL THEN pc.complemento ELSE a.complemento END, \
             r.alterado_por, r.criado_em, r.alterado_em) \
             FROM registration r LEFT JOIN address a ON true \
             JOIN proposals o ON o.id_cliente = r.id AND o.status = {novo} \
             WHERE pc.id_proposta = o.id AND proposal_copy_refreshable(o.id, {novo}) \
             RETURNING pc.*)"
        ),
    )
    .value("novo", ProposalStatus::New.as_str())
}

pub(crate) use person_columns;

/// The personal fields of a registration replaced: the name says what happened, the birth date is
/// a placeholder day, every other personal value is emptied, with the registration's own keys.
/// `$1` the registration, `$2` the value that stands for the CPF, `$3` who anonymised it.
pub(crate) const ANONYMIZE_REGISTRATION: &str = "\
UPDATE customers SET cpf = $2, nome_completo = 'Titular anonimizado', nome_social = NULL, nome_mae = NULL, data_nascimento = DATE '1900-01-01',
    sexo = 'Não informado', estado_civil = NULL, nacionalidade = NULL, celular = NULL, telefone_fixo = NULL,
    email = NULL, profissao = NULL, salario = NULL, trabalhando = false, servidor_publico = false, pep = false,
    afastado = false, medicamento = false, medicamento_descricao = NULL, e_analfabeto = false, cargo_politico = NULL,
    key_cliente = NULL, codigo_jave = NULL, id_endereco = NULL, ecommerce_customer_id = NULL, payment_method_id = NULL,
    alterado_por = $3, alterado_em = now()
WHERE id = $1";

/// What anonymisation writes in a proposal's copy of the person, with the copy's address.
macro_rules! anonymized_copy {
    ($which:literal) => {
        concat!(
            "UPDATE proposal_customers SET cpf = $2, nome_completo = 'Titular anonimizado', nome_social = NULL, \
             nome_mae = NULL, data_nascimento = DATE '1900-01-01', sexo = 'Não informado', estado_civil = NULL, \
             nacionalidade = NULL, celular = NULL, telefone_fixo = NULL, email = NULL, profissao = NULL, salario = NULL, \
             trabalhando = false, servidor_publico = false, pep = false, afastado = false, medicamento = false, \
             medicamento_descricao = NULL, e_analfabeto = false, cargo_politico = NULL, cep = '', endereco = '', \
             numero = '', bairro = '', cidade = '', estado = '', complemento = NULL, alterado_por = $3, \
             alterado_em = now() WHERE ",
            $which
        )
    };
}

/// The same for every proposal's copy of the registration `$1`.
pub(crate) const ANONYMIZE_COPIES: &str = anonymized_copy!("id_cliente = $1");

/// The same for the copy of the proposal `$1` alone (the retention schedule's unconcluded
/// proposal of a person whose registration still serves another).
pub(crate) const ANONYMIZE_PROPOSAL_COPY: &str = anonymized_copy!("id_proposta = $1");

/// The name anonymisation leaves: a registration or copy so named has nothing left to keep.
pub(crate) const ANONYMIZED_NAME: &str = "Titular anonimizado";

/// A row whose health answers (LGPD art. 11: the medication taken, its description, the leave
/// from work) are still held, with an optional table alias (`"pc."`).
macro_rules! holds_health_answers {
    ($alias:literal) => {
        concat!(
            "(",
            $alias,
            "medicamento OR ",
            $alias,
            "medicamento_descricao IS NOT NULL OR ",
            $alias,
            "afastado)"
        )
    };
}

pub(crate) use holds_health_answers;

/// The health answers dropped from the registrations of the CPF `$1` (by `$2`), the rest kept,
/// and the change's time left as it was: the schedule's later steps count from the last change.
pub(crate) const DROP_REGISTRATION_HEALTH: &str = concat!(
    "UPDATE customers SET medicamento = false, medicamento_descricao = NULL, afastado = false, alterado_por = $2 \
     WHERE cpf = $1 AND ",
    holds_health_answers!("")
);

/// The same for the copies of the proposals `$1`.
pub(crate) const DROP_COPY_HEALTH: &str = concat!(
    "UPDATE proposal_customers SET medicamento = false, medicamento_descricao = NULL, afastado = false, \
     alterado_por = $2 WHERE id_proposta = ANY($1) AND ",
    holds_health_answers!("")
);

/// `address`, after `person_columns::registration`: with an address, the registration's address
/// written under the id the registration holds (given by `registration` to a registration without
/// one): updated when it is stored, inserted when not. Without one the part writes nothing.
pub(crate) fn address(a: Option<&AddressData>) -> Part<'_> {
    Part::new(
        "address",
        "address AS ( \
         INSERT INTO addresses (id, cep, endereco, numero, bairro, cidade, estado, complemento) \
         SELECT r.id_endereco, {cep}, {endereco}, {numero}, {bairro}, {cidade}, {estado}, {complemento} \
         FROM registration r WHERE {com_endereco} \
         ON CONFLICT (id) DO UPDATE SET cep = EXCLUDED.cep, endereco = EXCLUDED.endereco, numero = EXCLUDED.numero, \
             bairro = EXCLUDED.bairro, cidade = EXCLUDED.cidade, estado = EXCLUDED.estado, \
             complemento = EXCLUDED.complemento, alterado_em = now() \
         RETURNING *)",
    )
    .value("com_endereco", a.is_some())
    .value("cep", a.map(|a| a.cep.as_str()))
    .value("endereco", a.map(|a| a.street.as_str()))
    .value("numero", a.map(|a| a.number.as_str()))
    .value("bairro", a.map(|a| a.neighborhood.as_str()))
    .value("cidade", a.map(|a| a.city.as_str()))
    .value("estado", a.map(|a| a.state.as_str()))
    .value("complemento", a.and_then(|a| a.complement.as_deref()))
}
