"""Provider token shapes: data only, read by ``redact.py``.

Written for this project after studying the public formats that secret scanners document
(gitleaks' rule set was the reference for which providers and prefixes are in common use;
no rule text was copied). Each row is ``(kind, pattern)``; every pattern starts with a
literal prefix, which ``redact`` uses as a pre-filter (``prefix in text``, C speed) and
which delays compiling the pattern until a text actually contains it: a rare provider costs
nothing on the texts that do not mention it.

A token's span is extended to the end of the token it starts (nothing glued to it stays).
Shapes without a prefix (Mistral, Cohere, Cloudflare API tokens, W&B…) are recognised by
their variable name instead: see ``NAMED`` and redact's assignment rules.
"""

from __future__ import annotations

# (kind, pattern). Patterns run on the original text (case-sensitive).
PREFIXED: tuple[tuple[str, str], ...] = (
    # secret managers and infrastructure
    ("vault-token", r"hvs\.[A-Za-z0-9_\-]{24,300}"),
    ("vault-token", r"hvb\.[A-Za-z0-9_\-]{24,300}"),
    ("vault-token", r"hvr\.[A-Za-z0-9_\-]{24,300}"),
    ("doppler-token", r"dp\.(?:pt|ct|sa|scim|audit)\.[A-Za-z0-9]{40,44}"),
    ("doppler-token", r"dp\.st\.(?:[a-z0-9_\-]{2,35}\.)?[A-Za-z0-9]{40,44}"),
    ("1password-token", r"ops_eyJ[A-Za-z0-9+/]{100,}={0,3}"),
    ("terraform-token", r"atlasv1\.[A-Za-z0-9_=\-]{60,70}"),  # walked back to its 14-char id
    ("pulumi-token", r"pul-[a-f0-9]{40}"),
    ("age-secret-key", r"AGE-SECRET-KEY-1[0-9A-Z]{58}"),
    ("aws-session-token", r"FwoGZXIvYXdzE[A-Za-z0-9+/=]{100,}"),
    ("aws-session-token", r"IQoJb3JpZ2luX2Vj[A-Za-z0-9+/=]{100,}"),
    ("alibaba-key", r"LTAI[A-Za-z0-9]{20}(?![A-Za-z0-9])"),
    ("tencent-key", r"AKID[A-Za-z0-9]{32}(?![A-Za-z0-9])"),
    ("yandex-key", r"AQVN[A-Za-z0-9_\-]{35,38}(?![A-Za-z0-9_\-])"),
    ("openshift-token", r"sha256~[A-Za-z0-9_\-]{43}(?![A-Za-z0-9_\-])"),
    ("tailscale-key", r"tskey-[a-z]+-[A-Za-z0-9]{8,}-[A-Za-z0-9]{16,}"),
    ("cloudflare-token", r"v1\.0-[a-f0-9]{24}-[a-f0-9]{146}"),
    # hosting, deploy, CI
    ("heroku-key", r"HRKU-AA[0-9A-Za-z_\-]{58}"),
    ("flyio-token", r"FlyV1[ \t]+fm[12][ar]?_[A-Za-z0-9+/=_,\-]{40,}"),
    ("flyio-token", r"fm1a_[A-Za-z0-9+/]{100,}={0,3}"),
    ("flyio-token", r"fm1r_[A-Za-z0-9+/]{100,}={0,3}"),
    ("flyio-token", r"fm2_[A-Za-z0-9+/]{100,}={0,3}"),
    ("flyio-token", r"fo1_[A-Za-z0-9_\-]{43}"),
    ("vercel-token", r"vcp_[A-Za-z0-9]{24,}"),
    ("vercel-token", r"vci_[A-Za-z0-9]{24,}"),
    ("vercel-token", r"vck_[A-Za-z0-9]{24,}"),
    ("vercel-token", r"vca_[A-Za-z0-9]{24,}"),
    ("vercel-token", r"vcr_[A-Za-z0-9]{24,}"),
    ("netlify-token", r"nfp_[A-Za-z0-9]{36,40}(?![A-Za-z0-9])"),
    ("netlify-token", r"nfc_[A-Za-z0-9]{36,40}(?![A-Za-z0-9])"),
    ("netlify-token", r"nfo_[A-Za-z0-9]{36,40}(?![A-Za-z0-9])"),
    ("netlify-token", r"nfu_[A-Za-z0-9]{36,40}(?![A-Za-z0-9])"),
    ("digitalocean-token", r"dop_v1_[a-f0-9]{64}"),
    ("digitalocean-token", r"doo_v1_[a-f0-9]{64}"),
    ("digitalocean-token", r"dor_v1_[a-f0-9]{64}"),
    ("render-key", r"rnd_[A-Za-z0-9]{32}(?![A-Za-z0-9])"),
    ("dockerhub-token", r"dckr_(?:pat|oat)_[A-Za-z0-9_\-]{27,}"),
    ("buildkite-token", r"bkua_[a-f0-9]{40}"),
    ("circleci-token", r"CCIPAT_[A-Za-z0-9]{22}_[a-f0-9]{40}"),
    ("bitbucket-token", r"ATBB[A-Za-z0-9_=.\-]{32,}"),
    ("sonar-token", r"sqp_[a-f0-9]{40}(?![A-Za-z0-9])"),
    ("sonar-token", r"squ_[a-f0-9]{40}(?![A-Za-z0-9])"),
    ("sonar-token", r"sqa_[a-f0-9]{40}(?![A-Za-z0-9])"),
    ("scalingo-token", r"tk-us-[A-Za-z0-9_\-]{48}"),
    ("octopus-key", r"API-[A-Z0-9]{26}(?![A-Za-z0-9])"),
    ("harness-key", r"pat\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}"),
    ("harness-key", r"sat\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}"),
    ("infracost-key", r"ico-[A-Za-z0-9]{32}(?![A-Za-z0-9])"),
    ("prefect-key", r"pnu_[A-Za-z0-9]{36}"),
    ("artifactory-key", r"AKCp[A-Za-z0-9]{69}"),
    ("artifactory-key", r"cmVmd[A-Za-z0-9]{59}(?![A-Za-z0-9])"),
    ("clojars-token", r"CLOJARS_[A-Za-z0-9]{60}"),
    ("rubygems-key", r"rubygems_[a-f0-9]{48}"),
    ("nuget-key", r"oy2[a-z0-9]{43}(?![A-Za-z0-9])"),
    ("sourcegraph-token", r"sgp_(?:[a-f0-9]{16}_|local_)?[a-f0-9]{40}"),
    # databases and data platforms
    ("planetscale-token", r"pscale_(?:pw|tkn|oauth)_[A-Za-z0-9_=.\-]{32,64}"),
    ("supabase-token", r"sbp_(?:oauth_)?[a-f0-9]{40}"),
    ("supabase-token", r"sb_secret_[A-Za-z0-9_\-]{20,}"),
    ("neon-key", r"napi_[a-z0-9]{64}"),
    ("databricks-token", r"dapi[a-f0-9]{32}(?:-\d)?(?![A-Za-z0-9])"),
    ("pinecone-key", r"pcsk_[A-Za-z0-9]{5,}_[A-Za-z0-9]{40,}"),
    ("airtable-token", r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}"),
    # observability
    ("sentry-token", r"sntryu_[a-f0-9]{64}"),
    ("sentry-token", r"sntrys_[A-Za-z0-9+/=_]{50,}"),
    ("grafana-token", r"glsa_[A-Za-z0-9]{32}_[a-f0-9]{8}"),
    ("grafana-token", r"glc_[A-Za-z0-9+/]{32,400}={0,3}"),
    ("grafana-token", r"eyJrIjoi[A-Za-z0-9]{70,400}={0,3}"),
    ("newrelic-key", r"NRAK-[A-Z0-9]{27}"),
    ("newrelic-key", r"NRII-[A-Za-z0-9_\-]{32}"),
    ("newrelic-key", r"NRJS-[a-f0-9]{19}"),
    ("dynatrace-token", r"dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}"),
    ("langsmith-key", r"lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}"),
    ("langfuse-key", r"sk-lf-[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}"),
    # AI providers
    ("openrouter-key", r"sk-or-(?:v1-)?[A-Za-z0-9_\-]{32,}"),
    ("groq-key", r"gsk_[A-Za-z0-9]{48,56}"),
    ("xai-key", r"xai-[A-Za-z0-9]{60,90}"),
    ("perplexity-key", r"pplx-[A-Za-z0-9]{40,56}"),
    ("replicate-token", r"r8_[A-Za-z0-9]{37}(?![A-Za-z0-9])"),
    ("deepseek-key", r"sk-[a-f0-9]{32}(?![A-Za-z0-9_\-])"),
    ("cerebras-key", r"csk-[a-z0-9]{40,56}"),
    ("elevenlabs-key", r"sk_[a-f0-9]{48}(?![A-Za-z0-9])"),
    ("fireworks-key", r"fw_[A-Za-z0-9]{24}(?![A-Za-z0-9])"),
    ("tavily-key", r"tvly-(?:dev-|prod-)?[A-Za-z0-9]{32}"),
    ("firecrawl-key", r"fc-[a-f0-9]{32}(?![A-Za-z0-9])"),
    # SaaS APIs
    ("square-token", r"EAAA[A-Za-z0-9_\-]{22,60}"),
    ("square-token", r"sq0atp-[A-Za-z0-9_\-]{22,43}"),
    ("square-token", r"sq0csp-[A-Za-z0-9_\-]{22,43}"),
    ("atlassian-token", r"ATATT3[A-Za-z0-9_\-=]{150,}"),
    ("atlassian-token", r"ATCTT3[A-Za-z0-9_\-=]{150,}"),
    ("linear-key", r"lin_(?:api|oauth)_[A-Za-z0-9]{40,64}"),
    ("notion-token", r"ntn_[A-Za-z0-9]{40,}"),
    ("figma-token", r"figd_[A-Za-z0-9_\-]{38,}"),
    ("figma-token", r"figu_[A-Za-z0-9_\-]{38,}"),
    ("postman-key", r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}"),
    ("shopify-token", r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}"),
    ("hubspot-token", r"pat-(?:na|eu|ap)\d-[a-f0-9]{8}-(?:[a-f0-9]{4}-){3}[a-f0-9]{12}"),
    ("mapbox-token", r"sk\.eyJ[A-Za-z0-9_\-]{50,}\.[A-Za-z0-9_\-]{20,}"),
    ("dropbox-token", r"sl\.(?:u\.)?[A-Za-z0-9_\-]{130,}"),
    ("contentful-token", r"CFPAT-[A-Za-z0-9_\-]{43}"),
    ("brevo-key", r"xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}"),
    ("brevo-key", r"xsmtpsib-[a-f0-9]{64}-[A-Za-z0-9]{16}"),
    ("resend-key", r"re_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}(?![A-Za-z0-9])"),
    ("shippo-token", r"shippo_(?:live|test)_[a-f0-9]{40}"),
    ("easypost-key", r"EZAK[A-Za-z0-9]{54}"),
    ("easypost-key", r"EZTK[A-Za-z0-9]{54}"),
    ("duffel-token", r"duffel_(?:test|live)_[A-Za-z0-9_=\-]{43}"),
    ("readme-key", r"rdme_[a-z0-9]{70}"),
    ("frameio-token", r"fio-u-[A-Za-z0-9_=\-]{64}"),
    ("adafruit-key", r"aio_[A-Za-z0-9]{28}(?![A-Za-z0-9])"),
    ("twitter-token", r"AAAAAAAAAAAAAAAAAAAAA[A-Za-z0-9%]{30,}"),
    ("facebook-token", r"EAACEdEose0cBA[A-Za-z0-9]{20,}"),
    ("braintree-token", r"access_token\$(?:production|sandbox)\$[a-z0-9]{16}\$[a-f0-9]{32}"),
    ("google-oauth", r"1//0[A-Za-z0-9_\-]{40,}"),
    ("firebase-key", r"AAAA[A-Za-z0-9_\-]{7}:APA91b[A-Za-z0-9_\-]{100,}"),
    # chat webhooks (the URL path is the credential; the host stays readable)
    ("teams-webhook", r"webhook\.office\.com/webhookb2/(?P<v>[A-Za-z0-9@/\-]{40,})"),
    ("zapier-webhook", r"hooks\.zapier\.com/hooks/catch/(?P<v>\d+/[A-Za-z0-9]{5,})"),
)

# Kinds whose token is walked back from an anchor in the middle: (kind, anchor, back, chars)
# e.g. a Terraform Cloud token ``<14 chars>.atlasv1.<60-70>``.
WALK_BACK: dict[str, tuple[int, str]] = {
    "terraform-token": (15, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789."),
}

# A name that says which provider its value belongs to (the value has no prefix of its own).
# (needles in the flattened key, kind)
NAMED: tuple[tuple[tuple[str, ...], str], ...] = (
    (("cloudflare", "cfapitoken", "cfapikey"), "cloudflare-token"),
    (("mistral",), "mistral-key"),
    (("cohere", "coapikey"), "cohere-key"),
    (("heroku",), "heroku-key"),
    (("vercel",), "vercel-token"),
    (("netlify",), "netlify-token"),
    (("wandb",), "wandb-key"),
    (("snyk",), "snyk-token"),
    (("together",), "together-key"),
    (("algolia",), "algolia-key"),
    (("fastly",), "fastly-token"),
    (("mailchimp",), "mailchimp-key"),
    (("sentry",), "sentry-token"),
    (("linear",), "linear-key"),
    (("notion",), "notion-token"),
    (("supabase",), "supabase-token"),
    (("newrelic", "nria"), "newrelic-key"),
    (("groq",), "groq-key"),
    (("openrouter",), "openrouter-key"),
    (("deepseek",), "deepseek-key"),
    (("xai", "grok"), "xai-key"),
    (("perplexity", "pplx"), "perplexity-key"),
    (("replicate",), "replicate-token"),
    (("vault",), "vault-token"),
    (("doppler",), "doppler-token"),
    (("pulumi",), "pulumi-token"),
    (("digitalocean",), "digitalocean-token"),
    (("figma",), "figma-token"),
    (("shopify",), "shopify-token"),
    (("telegram",), "telegram-bot-token"),
    (("okta",), "okta-token"),
)
