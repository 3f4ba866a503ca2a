"""The gate refuses only when what the question is about is absent from the documents."""

from repobot.engine.gate import TextCorpus, gate, key_terms

DOCS = [
    "# Background tasks\nSend an email notification after returning the response, so the user does not wait.",
    "# CORS\nUse CORSMiddleware to allow a frontend on another origin, such as http://localhost:8080.",
    "# Lifespan\nLoad the machine learning model once at startup and free the memory at shutdown.",
    "# HTTP/2\nHTTPX supports HTTP/2 with the http2 extra.",
] + [f"# Page {i}\nFastAPI application endpoint number {i}." for i in range(60)]
CORPUS = TextCorpus(DOCS)


def test_a_subject_absent_from_the_documents_is_refused():
    result = gate("Does FastAPI support HTTP/3?", DOCS[3:4], CORPUS)
    assert not result.covered and result.missing == ["HTTP/3"]
    assert not gate("How do I expose Prometheus metrics from my FastAPI app?", DOCS[:2], CORPUS).covered


def test_a_question_let_through_says_whether_it_names_something_specific_the_documents_have():
    question = "Can FastAPI send the notification email after the response, so the user does not wait, via Datadog?"
    unanchored = gate(question, DOCS[:1], CORPUS)
    assert unanchored.covered and unanchored.bystanders == ["Datadog"] and not unanchored.anchored  # FastAPI: everywhere
    anchored = gate("My React app on another origin is blocked: do I add CORSMiddleware?", DOCS[1:2], CORPUS)
    assert anchored.covered and anchored.bystanders == ["React"] and anchored.anchored


def test_only_names_of_letters_are_reported_as_bystanders_not_the_users_own_files_or_variables():
    question = "Can FastAPI send the notification email after the response, so the user does not wait, via Datadog? " \
               "My config is DATABASE_URL in settings_local.py."
    assert gate(question, DOCS[:1], CORPUS).bystanders == ["Datadog"]


def test_a_bystander_term_does_not_refuse_a_question_the_passages_answer():
    question = "After signup I send a welcome email; how do I not make the user wait for the SMTP call?"
    result = gate(question, DOCS[:1], CORPUS)
    assert "SMTP" in key_terms(question) and result.covered and result.bystanders == ["SMTP"]
    assert {"email", "wait"} <= set(result.informative)


def test_words_found_in_most_chunks_say_nothing():
    result = gate("Can my FastAPI application endpoint use LDAP?", DOCS[4:6], CORPUS)
    assert not result.covered and result.missing == ["LDAP"]  # "application" and "endpoint" are everywhere


def test_a_question_in_another_language_is_judged_through_its_rewrite_not_its_bigrams():
    question = "用户注册后发欢迎邮件，怎么不让用户等 SMTP 调用？"
    assert not gate(question, DOCS[:1], CORPUS, same_language=False).covered  # nothing to judge it by
    rewrite = "After signup, how do I send a welcome email without making the user wait for the SMTP call?"
    assert gate(question, DOCS[:1], CORPUS, rewritten=rewrite, same_language=False).covered


def test_no_absent_term_means_the_model_tries():
    assert gate("Is it faster than requests?", DOCS[3:4], CORPUS).covered
    assert not gate("Anything?", [], CORPUS).covered


def test_the_users_own_addresses_sizes_and_variables_are_not_what_is_asked_about():
    question = "Our proxy at proxy.corp.local:3128 wants a password; I'm POSTing a 5GB file with session.delete()?"
    assert key_terms(question) == ["session.delete", "POSTing"]  # not the address, the port, the size
    corpus = TextCorpus(["Send a POST with client.post(), or DELETE with client.delete()."] + DOCS)
    assert gate(question, DOCS[:1], corpus).covered  # POSTing is POST; session.delete is delete
    assert not gate("Can I call session.frobnicate() on it?", DOCS[:1], corpus).covered


def test_with_no_passages_only_the_terms_the_documents_lack_are_named():
    result = gate("How do I use FastAPI with LDAP?", [], TextCorpus(["FastAPI docs here."]))
    assert not result.covered and result.missing == ["LDAP"]
    assert gate("How do I use FastAPI?", [], TextCorpus(["FastAPI docs here."])).missing == ["(no passages retrieved)"]


def test_a_migration_question_quoting_its_own_call_and_python_error_is_let_through():
    docs = ["# Streaming\nIterate over the body with `response.iter_bytes([chunk_size])` instead of `response.iter_content()`.",
            "# Clients\nA client pools connections.", "# Timeouts\nTimeouts default to five seconds."]
    corpus = TextCorpus(docs)
    question = "porting from requests: r.iter_content(chunk_size=8192) raises AttributeError in httpx. What now?"
    assert "AttributeError" not in key_terms(question)  # Python's own error is what the user saw, not the subject
    assert gate(question, docs[:1], corpus).covered  # the call's arguments are the user's values
    rewrite_guess = "In httpx, what replaces r.iter_content() when reading Parquet files?"
    assert gate("r.iter_content 报 AttributeError，httpx 里叫什么？", docs[:1], corpus, rewritten=rewrite_guess,
                same_language=False).covered  # "Parquet" is only the rewrite's guess


def test_a_name_the_user_asks_about_that_no_retrieved_passage_has_is_reported_unseen():
    corpus = TextCorpus(DOCS + ["# Release notes\nDocs for AWS Lambda deployments were removed."])
    result = gate("How do I run my FastAPI app on AWS Lambda?", DOCS[:2], corpus)
    assert result.covered and result.unseen == ["AWS", "Lambda"]  # FastAPI is in every chunk: not specific
    assert gate("Can I use CORSMiddleware for a frontend?", DOCS[1:2], corpus).unseen == []  # the passage has it
