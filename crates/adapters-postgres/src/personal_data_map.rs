//! Where each category of personal data (`domain::privacy::declarations`) is stored: every column
//! of every table that holds any, either with the categories it holds or among the table's other
//! columns. A test reads the migrated schema and fails on a column of these tables declared
//! nowhere, on a declared column that no longer exists, and on a table whose columns look personal
//! (a CPF, a name, an e-mail, an address, a reason, a body) that is in neither list below.

use domain::privacy::declarations::Category::{
    self, AccessRecords, Address, Beneficiaries, Contact, Financial, Health, Identity, Payroll, SignatureEvidence,
};

/// One table holding personal data.
#[derive(Debug, Clone, Copy)]
pub struct StoredTable {
    pub table: &'static str,
    /// Each personal column with the categories it holds (a copy or a document holds several).
    pub personal: &'static [(&'static str, &'static [Category])],
    /// The table's other columns: keys, codes, states and times that say nothing of a person.
    pub other: &'static [&'static str],
}

/// A copy of what the person declared (a request's body, a document's JSON, a masked history).
const DECLARED: &[Category] = &[Identity, Contact, Address, Health, Financial, Payroll];
/// Route 7's stored document: what was declared and how it was signed.
const READ_MODEL: &[Category] = &[
    Identity,
    Contact,
    Address,
    Health,
    Financial,
    Payroll,
    SignatureEvidence,
];
/// A proposal's PDF (sealed, signed, the provider's copy, the certificate): the customer, the
/// address and the payment it prints (never the health answers) and the signing evidence.
const PDF: &[Category] = &[Identity, Contact, Address, Financial, Payroll, SignatureEvidence];
/// Free text people wrote about the person (a reason, an answer, a file sent): treated as identifying.
const WRITTEN: &[Category] = &[Identity];
/// The user (seller, back office) who did something: their e-mail.
const AUTHOR: &[Category] = &[AccessRecords];

/// A session, open or ended (the record of ended sessions has the same columns): who was signed
/// in, from when to when, and how it ended.
const SESSION_RECORD: &[(&str, &[Category])] = &[
    ("user_id", &[AccessRecords]),
    ("created_at", &[AccessRecords]),
    ("ended_at", &[AccessRecords]),
    ("end_reason", &[AccessRecords]),
];
const SESSION_OTHER: &[&str] = &["id", "application", "credentials_epoch", "expires_at"];

/// The columns of a registration and of a proposal's copy of it: the person's, each with its
/// category from the registry (`person_columns`), who changed it, and the table's own.
macro_rules! person {
    ($($extra:expr),* $(,)?) => {
        crate::person_columns::person_registry!(person_categories($($extra),*))
    };
}

macro_rules! person_categories {
    (($($extra:expr),*) $($col:ident: $sql:ty => $rust:ty [$cat:ident] $rule:ident $anon:literal
        { $field:ident: $read:expr } $(|$c:ident| $bind:expr)?;)*) => {
        &[$((stringify!($col), &[$cat]),)* ("alterado_por", AUTHOR), $($extra),*]
    };
}

pub const STORED: &[StoredTable] = &[
    StoredTable {
        table: "customers",
        personal: person![
            ("ecommerce_customer_id", &[Financial]),
            ("payment_method_id", &[Financial])
        ],
        other: &[
            "id",
            "key_cliente",
            "status",
            "codigo_jave",
            "id_endereco",
            "criado_em",
            "alterado_em",
            "aplicacao_vendedor",
            "id_parceiro_vendedor",
        ],
    },
    StoredTable {
        table: "proposal_customers",
        personal: person![
            ("nome_busca", &[Identity]),
            ("cep", &[Address]),
            ("endereco", &[Address]),
            ("numero", &[Address]),
            ("bairro", &[Address]),
            ("cidade", &[Address]),
            ("estado", &[Address]),
            ("complemento", &[Address]),
        ],
        other: &["id_proposta", "id_cliente", "criado_em", "alterado_em"],
    },
    StoredTable {
        table: "addresses",
        personal: &[
            ("cep", &[Address]),
            ("endereco", &[Address]),
            ("numero", &[Address]),
            ("bairro", &[Address]),
            ("cidade", &[Address]),
            ("estado", &[Address]),
            ("complemento", &[Address]),
        ],
        other: &["id", "criado_em", "alterado_em"],
    },
    StoredTable {
        table: "proposals",
        personal: &[("cpf_cliente", &[Identity]), ("alterado_por", AUTHOR)],
        other: &[
            "id",
            "identificador",
            "id_jave",
            "valor",
            "cpf_cnpj_parceiro",
            "id_parceiro",
            "id_representante",
            "id_cliente",
            "key_documento",
            "key_assinatura_requisicao",
            "reenvios",
            "status",
            "alterado_em",
            "criado_em",
            "cnpj_associacao",
            "cnpj_federacao",
            "tipo_envio",
            "reenvio_notificacao",
            "fluxo",
            "codigo_associado",
            "id_motivacao",
            "id_produto",
            "id_gravacao",
            "id_convite",
            "assinatura_eletronica",
            "codigo_faturamento",
            "tipo_pagamento",
        ],
    },
    StoredTable {
        table: "proposal_payments",
        personal: &[
            ("nome_cartao", &[Financial]),
            ("numero_cartao", &[Financial]),
            ("validade", &[Financial]),
            ("dia_cobranca", &[Financial]),
            ("banco", &[Financial]),
            ("agencia", &[Financial]),
            ("conta", &[Financial]),
            ("operacao", &[Financial]),
            ("numero_folha", &[Payroll]),
            ("tipo_folha", &[Payroll]),
            ("especie", &[Payroll]),
            ("orgao_emissor", &[Payroll]),
            ("ispb", &[Financial]),
            ("alterado_por", AUTHOR),
        ],
        other: &["id", "id_proposta", "tipo", "criado_em", "alterado_em"],
    },
    StoredTable {
        table: "proposal_beneficiaries",
        personal: &[("beneficiarios", &[Beneficiaries])],
        other: &["id_proposta", "criado_em"],
    },
    StoredTable {
        table: "signature_parties",
        personal: &[
            ("signed_at", &[SignatureEvidence]),
            ("latitude", &[SignatureEvidence]),
            ("longitude", &[SignatureEvidence]),
            ("ip", &[SignatureEvidence]),
            ("user_agent", &[SignatureEvidence]),
            ("authentication", &[SignatureEvidence]),
        ],
        other: &["signature_id", "role", "request_key", "status"],
    },
    StoredTable {
        table: "signatures",
        personal: &[("alterado_por", AUTHOR)],
        other: &[
            "id",
            "proposal_id",
            "document_key",
            "sign_url",
            "criado_em",
            "alterado_em",
            "prazo_em",
        ],
    },
    StoredTable {
        table: "sealed_documents",
        personal: &[("pdf", PDF), ("sealed_by", AUTHOR)],
        other: &["proposal_id", "sha256", "sealed_at"],
    },
    StoredTable {
        table: "signed_documents",
        personal: &[("pdf", PDF)],
        other: &["proposal_id", "sha256", "made_at"],
    },
    StoredTable {
        table: "provider_signed_copies",
        personal: &[("pdf", PDF)],
        other: &["document_key", "sha256", "received_at"],
    },
    StoredTable {
        table: "proposal_certificates",
        personal: &[("pdf", PDF), ("enviado_para", &[Contact])],
        other: &[
            "id_proposta",
            "aceita_em",
            "sha256",
            "emitido_em",
            "enviado_em",
            "reservado_ate",
            "tipo",
            "vigencia",
            "retido_em",
            "retido_motivo",
            "numero",
            "modelo_versao",
            "modelo_sha256",
        ],
    },
    StoredTable {
        table: "proposal_read_models",
        personal: &[("documento", READ_MODEL)],
        other: &["id_proposta", "identificador", "fluxo", "id_parceiro", "bloqueado"],
    },
    StoredTable {
        table: "proposal_history",
        // Personal values masked (decision 170): a CPF's check digits, a name's initials.
        personal: &[("changes", DECLARED), ("changed_by", AUTHOR)],
        other: &["id", "proposal_id", "at", "action"],
    },
    StoredTable {
        table: "proposal_events",
        personal: &[("reason", WRITTEN), ("changed_by", AUTHOR)],
        other: &[
            "id",
            "proposal_id",
            "kind",
            "from_status",
            "to_status",
            "changed_at",
            "sequence",
            // A code of a closed list (decision 283): what a seller reads instead of the words.
            "reason_category",
        ],
    },
    StoredTable {
        table: "proposal_operations",
        personal: &[("reason", WRITTEN), ("requested_by", AUTHOR)],
        other: &[
            "id",
            "proposal_id",
            "kind",
            "state",
            "target",
            "started_at",
            "finished_at",
            "outcome",
            "attempts",
            "lease_until",
            "reason_category",
        ],
    },
    StoredTable {
        table: "hook_deliveries",
        // The event as the partner receives it: the proposal's status and the reason written.
        personal: &[("body", WRITTEN)],
        other: &[
            "id",
            "subscription_id",
            "proposal_event_id",
            "message_id",
            "event_type",
            "state",
            "attempts",
            "next_attempt_at",
            "leased_until",
            "created_at",
            "delivered_at",
            "replay_id",
        ],
    },
    StoredTable {
        table: "customer_requests",
        personal: &[("motivo", WRITTEN), ("solicitado_por", AUTHOR)],
        other: &["protocolo", "proposal_id", "tipo", "solicitado_em"],
    },
    StoredTable {
        table: "refunds",
        personal: &[("motivo", WRITTEN), ("pago_por", AUTHOR)],
        other: &[
            "id",
            "protocolo",
            "proposal_id",
            "invoice_id",
            "amount_cents",
            "status",
            "created_at",
            "meio",
            "nominal_cents",
            "correcao",
            "referencia",
            "pago_em",
            "vence_em",
            "atraso_de",
        ],
    },
    StoredTable {
        // The CGU's list of politically exposed persons in force (issue 70): public agents, by
        // the six CPF digits the portal shows and their names; replaced whole at each import.
        table: "kyc_pep_entries",
        personal: &[
            ("cpf_meio", &[Identity]),
            ("nome", &[Identity]),
            ("nome_chave", &[Identity]),
            ("sigla_funcao", &[Identity]),
            ("descricao_funcao", &[Identity]),
            ("nivel_funcao", &[Identity]),
            ("orgao", &[Identity]),
            ("inicio_exercicio", &[Identity]),
            ("fim_exercicio", &[Identity]),
            ("fim_carencia", &[Identity]),
        ],
        other: &["id", "id_importacao"],
    },
    StoredTable {
        // The CPF's status at the Receita, kept for the screening's configured time (decision
        // 293); gone with the person's anonymisation.
        table: "kyc_cpf_status",
        personal: &[("cpf", &[Identity]), ("situacao", &[Identity])],
        other: &["consultado_em"],
    },
    StoredTable {
        // Development's answers of the CPF's status, set per CPF (sandbox only).
        table: "kyc_sandbox_cpf_status",
        personal: &[("cpf", &[Identity]), ("resposta", &[Identity])],
        other: &["definida_em"],
    },
    StoredTable {
        // A proposal's due diligence: whether the customer is a PEP, why it was asked (a role on
        // the CGU's list, the CPF unverified), the compliance analyst's note and who decided.
        table: "proposal_kyc",
        personal: &[
            ("pep", &[Identity]),
            ("motivos", &[Identity]),
            ("nota", WRITTEN),
            ("decidida_por", AUTHOR),
        ],
        other: &["id_proposta", "situacao", "criada_em", "decidida_em"],
    },
    StoredTable {
        // Each import of the list: which publication, when and by whom.
        table: "kyc_pep_imports",
        personal: &[("importada_por", AUTHOR)],
        other: &[
            "id",
            "arquivo",
            "sha256",
            "linhas_lidas",
            "pessoas",
            "recusadas",
            "importada_em",
        ],
    },
    StoredTable {
        // A refused proposal's defence (decision 290): kept apart, the person found by a keyed
        // digest of the CPF.
        table: "refusal_defences",
        personal: &[
            ("cpf_tag", &[Identity]),
            ("motivo", &[Health]),
            ("declaracao", &[Health]),
            ("pedidos", &[Health]),
            ("guardada_por", AUTHOR),
        ],
        other: &[
            "id",
            "id_proposta",
            "identificador",
            "recusada_em",
            "categoria_motivo",
            "guardada_em",
            "apagar_em",
        ],
    },
    StoredTable {
        // Where the customer's refunds are paid: their Pix key (a CPF, an e-mail, a phone) or account.
        table: "refund_destinations",
        personal: &[
            ("chave", &[Identity, Contact, Financial]),
            ("banco", &[Financial]),
            ("agencia", &[Financial]),
            ("conta", &[Financial]),
            ("registrado_por", AUTHOR),
        ],
        other: &["id_proposta", "tipo", "tipo_chave", "tipo_conta", "registrado_em"],
    },
    StoredTable {
        table: "contract_billings",
        personal: &[("situacao_por", AUTHOR)],
        other: &[
            "id_proposta",
            "metodo",
            "valor",
            "aceita_em",
            "primeiro_vencimento",
            "proximo_periodo",
            "proximo_vencimento",
            "retentativas_dias",
            "carencia_dias",
            "suspensao_dias",
            "situacao",
            "situacao_desde",
            "encerrada_em",
            "primeira_parcela",
            "encerramento_dias",
            "coletivo_vida",
        ],
    },
    StoredTable {
        table: "averbacoes",
        // The margin left on the person's payroll (it tells of their pay), the platform's reason
        // (a refusal may name the benefit's state), and who recorded it (a back-office user).
        personal: &[("margem", &[Payroll]), ("motivo", WRITTEN), ("alterada_por", AUTHOR)],
        other: &["id_proposta", "id_externo", "situacao", "solicitada_em", "situacao_em"],
    },
    StoredTable {
        table: "pix_recurrences",
        // Why it ended, in the payer's PSP's words (a refusal, a cancellation).
        personal: &[("alterada_por", AUTHOR), ("motivo", WRITTEN)],
        other: &[
            "id_proposta",
            "id_rec",
            "status",
            "pix_copia_e_cola",
            "id_solic_rec",
            "criada_em",
            "alterada_em",
        ],
    },
    StoredTable {
        // The authorisation of the debits, without the account: its reason may be the customer's
        // words (a revocation through the insurer), its author a person.
        table: "debit_authorizations",
        personal: &[("motivo", WRITTEN), ("situacao_por", AUTHOR)],
        other: &[
            "id_proposta",
            "banco",
            "autorizada_em",
            "evidencia_sha256",
            "situacao",
            "situacao_em",
        ],
    },
    StoredTable {
        table: "debit_files",
        // A remessa's text holds the accounts it debits, until every debit of it is answered.
        personal: &[("conteudo", &[Financial])],
        other: &[
            "id",
            "tipo",
            "banco",
            "convenio",
            "nsa",
            "nome",
            "registros",
            "valor_total",
            "sha256",
            "em",
            "confirmada_em",
            "resumo",
        ],
    },
    StoredTable {
        table: "charges",
        // The Pix that paid a charge leads to the payer's account.
        personal: &[("alterada_por", AUTHOR), ("pix_e2e", &[Financial])],
        other: &[
            "id",
            "id_proposta",
            "periodo",
            "vencimento",
            "valor",
            "metodo",
            "status",
            "tentativas",
            "proxima_tentativa",
            "id_externo",
            "motivo",
            "pago_em",
            "valor_pago",
            "criada_em",
            "alterada_em",
            "apresentada_em",
        ],
    },
    StoredTable {
        table: "billing_notice_deliveries",
        // Where a notice of an unpaid premium went, masked (`m***@exemplo.com.br`,
        // `(11) *****-5678`): the proof that it reached the contact the proposal keeps.
        personal: &[("destino", &[Contact])],
        other: &[
            "id",
            "id_aviso",
            "canal",
            "id_externo",
            "status",
            "motivo",
            "enviado_em",
            "entregue_em",
            "falhou_em",
        ],
    },
    StoredTable {
        table: "proposal_pending_requests",
        personal: &[
            ("nota", WRITTEN),
            ("resposta", WRITTEN),
            ("pedida_por", AUTHOR),
            ("respondida_por", AUTHOR),
            // The proponent's address the documents link went to, masked (decision 289).
            ("link_enviado_para", &[Contact]),
        ],
        other: &[
            "id",
            "id_proposta",
            "itens",
            "pedida_em",
            "respondida_em",
            "categoria_motivo",
            "destinatario",
            // The link's SHA-256: the token itself is never kept.
            "link_sha256",
        ],
    },
    StoredTable {
        table: "proposal_pending_files",
        // The person's documents the seller sent (any of them: an identity card, a medical report).
        personal: &[("nome", WRITTEN), ("conteudo", DECLARED)],
        other: &["id", "id_pendencia", "tipo", "tamanho", "sha256", "enviado_em"],
    },
    StoredTable {
        table: "subscriptions",
        // The payment platform's object: the buyer's name, e-mail and card's last digits.
        personal: &[
            ("object", &[Identity, Contact, Financial]),
            ("customer_id", &[Financial]),
        ],
        other: &[
            "id",
            "proposal_id",
            "product_id",
            "platform_id",
            "status",
            "created_at",
            "updated_at",
            "current_period_end",
            "latest_invoice_status",
            "platform_read_at",
        ],
    },
    StoredTable {
        table: "payment_customer_redactions",
        personal: &[("platform_customer_id", &[Financial]), ("requested_by", AUTHOR)],
        other: &["requested_at", "answered_at", "error"],
    },
    StoredTable {
        table: "idempotency_keys",
        // A creating request's body and its answer, sealed; `subjects` are keyed digests of CPFs.
        personal: &[
            ("body", DECLARED),
            ("answer_sealed", DECLARED),
            ("subjects", &[Identity]),
        ],
        other: &[
            "user_id",
            "key",
            "fingerprint",
            "created_at",
            "claimed_at",
            "completed_at",
            "status",
            "content_type",
            "forgotten_at",
        ],
    },
    StoredTable {
        table: "personal_data_blocks",
        personal: &[("cpf", &[Identity]), ("bloqueado_por", AUTHOR)],
        other: &["base", "retido_ate", "bloqueado_em"],
    },
    StoredTable {
        table: "privacy_consents",
        personal: &[
            ("cpf", &[Identity]),
            ("registrado_por", AUTHOR),
            // The proof of the person's act: the masked address the link went to, the client's
            // address and browser, or the reference the back office gave.
            ("evidencia", &[Contact, SignatureEvidence]),
        ],
        other: &["id", "finalidade", "concedido", "registrado_em", "canal"],
    },
    StoredTable {
        table: "privacy_person_links",
        personal: &[("cpf", &[Identity]), ("enviado_para", &[Contact])],
        other: &[
            "id",
            "token_sha256",
            "finalidade",
            "emitido_em",
            "expira_em",
            "usado_em",
            "protocolo",
        ],
    },
    StoredTable {
        table: "privacy_requests",
        personal: &[
            ("cpf", &[Identity]),
            ("observacao", WRITTEN),
            ("resposta", WRITTEN),
            ("arquivo_enviado_para", &[Contact]),
            ("recebido_por", AUTHOR),
            ("respondido_por", AUTHOR),
        ],
        other: &[
            "protocolo",
            "tipo",
            "canal",
            "recebido_em",
            "prazo",
            "respondido_em",
            "arquivo_nome",
            "arquivo_sha256",
            "arquivo_bytes",
        ],
    },
    StoredTable {
        table: "users",
        personal: &[
            ("email", &[AccessRecords]),
            ("name", &[AccessRecords]),
            ("cpf", &[AccessRecords]),
            ("password_hash", &[AccessRecords]),
        ],
        other: &[
            "id",
            "created_at",
            "updated_at",
            "credentials_epoch",
            "disabled_at",
            "api_version",
        ],
    },
    StoredTable {
        table: "sessions",
        personal: SESSION_RECORD,
        other: SESSION_OTHER,
    },
    StoredTable {
        table: "ended_sessions",
        personal: SESSION_RECORD,
        other: SESSION_OTHER,
    },
    StoredTable {
        table: "refresh_tokens",
        personal: &[("user_id", &[AccessRecords]), ("issued_at", &[AccessRecords])],
        other: &[
            "jti",
            "session_id",
            "application",
            "expires_at",
            "used_at",
            "revoked_at",
        ],
    },
    StoredTable {
        table: "password_recovery_tokens",
        personal: &[("user_id", &[AccessRecords]), ("created_at", &[AccessRecords])],
        other: &["id", "token_hash", "expires_at", "used_at", "revoked_at"],
    },
    StoredTable {
        table: "signin_throttle",
        // The e-mail (or address) whose sign-ins failed.
        personal: &[("key", &[AccessRecords])],
        other: &["scope", "failures", "window_started_at", "blocked_until"],
    },
];

/// Tables with a column whose name looks personal that hold no one's personal data, and why.
pub const NOT_PERSONAL_TABLES: &[(&str, &str)] = &[
    ("partners", "parceiros, associações e federações: pessoas jurídicas"),
    ("banks", "o catálogo de bancos"),
    ("products", "o catálogo de produtos"),
    (
        "hook_subscriptions",
        "endereços dos sistemas dos parceiros e o motivo de uma inscrição inativa",
    ),
    (
        "sandbox_payment_objects",
        "a plataforma de pagamento de desenvolvimento (SALES_ENV=development)",
    ),
    ("privacy_retention_runs", "contagens das passagens do prazo de retenção"),
    (
        "proposal_notices",
        "a versão e o SHA-256 do aviso de privacidade e dos termos que o documento da proposta mostrou, o canal e quando",
    ),
    ("__repeatable_sql", "as funções SQL aplicadas pelo migrate"),
];

/// `table.column` of every place `category` is stored.
pub fn stored_in(category: Category) -> Vec<String> {
    STORED
        .iter()
        .flat_map(|t| {
            t.personal
                .iter()
                .filter(move |(_, categories)| categories.contains(&category))
                .map(move |(column, _)| format!("{}.{column}", t.table))
        })
        .collect()
}
