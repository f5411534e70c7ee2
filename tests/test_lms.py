"""A lista para o LMS (livro.exercicios.lms), lida de volta por leitores que não são o escritor.

- Moodle XML: o lxml (XPath), o moodle-xml-parser (cloze e multichoice) e um leitor de lacunas
  escrito aqui, que segue a sintaxe do cloze do Moodle (~ e } com barra na frente não cortam; o
  feedback passa por um html_entity_decode). O numerical e o shortanswer, que nenhuma biblioteca
  lê, são conferidos como o Moodle os corrige: a primeira resposta dentro da tolerância vale.
- QTI 2.1: o lxml e um pequeno intérprete do responseProcessing (o pedaço da especificação que o
  pacote usa), escrito aqui; o citolab-qti-convert lê o pacote inteiro e o passa para o QTI 3.
"""
import html
import io
import re
import zipfile

import pytest
from lxml import etree
from moodle_xml_parser.parser import parse_bytes
from qti_convert import upgrade_package

from livro import brinquedo as b
from livro.exercicios import EXERCICIOS, versao
from livro.exercicios.confere import tolerancia
from livro.exercicios.lms import escrever, main, moodle_xml, qti_zip, semente_lms

LISTA, N = "semana-4", 3
IDS = list(EXERCICIOS)
PONTOS = {i: 1 + j % 3 for j, i in enumerate(IDS)}
Q = "{http://www.imsglobal.org/xsd/imsqti_v2p1}"
CP = "{http://www.imsglobal.org/xsd/imscp_v1p1}"


@pytest.fixture(scope="module")
def xml():
    return moodle_xml(LISTA, IDS, PONTOS, N)


@pytest.fixture(scope="module")
def pacote():
    return qti_zip(LISTA, IDS, PONTOS, N)


def _todas():
    return [(i, k, versao(i, semente_lms(LISTA, k))) for i in IDS for k in range(1, N + 1)]


def _tol(v, alvo):
    return v.rel * abs(alvo) if v.rel else v.tol


def _perto(v, x, alvo):
    return abs(x - alvo) <= _tol(v, alvo) * (1 + 1e-9)


def _puro(s):
    """O texto de um trecho de HTML, sem as marcas."""
    return html.unescape(re.sub(r"<[^>]+>", "", s))


def _digitado(v, x):
    """O que um aluno digitaria: o número com as casas pedidas, com ponto decimal."""
    return round(x, v.casas) if v.tipo in ("numero", "prob", "vetor") else x


# ---------------------------------------------------------------------------
# Moodle
# ---------------------------------------------------------------------------
def _questoes(xml):
    """{nome: (categoria, <question>)}, na ordem do arquivo."""
    raiz = etree.fromstring(xml)
    assert raiz.tag == "quiz"
    out, cat = {}, None
    for q in raiz.findall("question"):
        if q.get("type") == "category":
            cat = q.findtext("category/text")
        else:
            out[q.findtext("name/text")] = (cat, q)
    return out


def test_moodle_uma_categoria_por_exercicio_e_uma_questao_por_versao(xml):
    raiz = etree.fromstring(xml)
    cats = raiz.xpath("question[@type='category']/category/text/text()")
    # a barra de um título (∂L/∂W_U) vira // no caminho da categoria do Moodle
    assert cats == [f"$course$/top/{LISTA}/{i} · {EXERCICIOS[i].titulo.replace('/', '//')}" for i in IDS]
    qs = _questoes(xml)
    assert len(qs) == len(IDS) * N == len(raiz.xpath("question[@type!='category']"))
    for i, k, v in _todas():
        cat, q = qs[f"{i} · versão {k}"]
        assert cat == f"$course$/top/{LISTA}/{i} · {EXERCICIOS[i].titulo.replace('/', '//')}"
        tipo = {"numero": "numerical", "prob": "numerical", "inteiro": "numerical", "vetor": "cloze",
                "token": "shortanswer", "escolha": "multichoice"}[v.tipo]
        assert q.get("type") == tipo
        assert float(q.findtext("defaultgrade")) == PONTOS[i]
        texto = q.findtext("questiontext/text")
        assert v.enunciado in texto and html.escape(tolerancia(v), quote=False) in texto
        if v.tipo == "prob":
            assert "entre 0 e 1" in texto and "não em porcentagem" in texto
        assert v.resolucao in q.findtext("generalfeedback/text")


def _nota_numerical(q, x):
    """Como o Moodle corrige um numerical: a primeira resposta com |x - valor| <= tolerância."""
    for a in q.findall("answer"):
        if abs(x - float(a.findtext("text"))) <= float(a.findtext("tolerance")) * (1 + 1e-9):
            return float(a.get("fraction")), a.findtext("feedback/text")
    return None, None


def test_moodle_numerical_gabarito_tolerancia_e_erros(xml):
    qs = _questoes(xml)
    vistos = 0
    for i, k, v in _todas():
        if v.tipo not in ("numero", "prob", "inteiro"):
            continue
        vistos += 1
        q = qs[f"{i} · versão {k}"][1]
        primeira = q.find("answer")
        assert primeira.get("fraction") == "100"
        assert _perto(v, float(primeira.findtext("text")), v.resposta)
        assert float(primeira.findtext("tolerance")) == pytest.approx(_tol(v, v.resposta), rel=1e-9, abs=1e-15)
        if v.tipo == "inteiro":
            assert float(primeira.findtext("tolerance")) == 0 and primeira.findtext("text") == str(v.resposta)
        if v.tipo == "prob":
            assert 0 <= float(primeira.findtext("text")) <= 1
        assert _nota_numerical(q, _digitado(v, v.resposta))[0] == 100
        assert len(q.findall("answer")) == 1 + len(v.erros)
        for a in q.findall("answer"):  # a tolerância de cada resposta é a do conferidor em torno dela
            assert float(a.findtext("tolerance")) == pytest.approx(_tol(v, float(a.findtext("text"))), rel=1e-9,
                                                                   abs=1e-15)
        for e in v.erros:
            nota, fb = _nota_numerical(q, _digitado(v, e.valor))
            assert nota == 0 and e.dica in fb and e.nome in fb, (i, k, e.nome)
        assert _nota_numerical(q, 1e9) == (None, None)
    assert vistos


def _lacunas(texto):
    """As lacunas {n:TIPO:…} de um cloze, lidas à moda do Moodle: [(tipo, [(fração, resposta, feedback)])]."""
    out = []
    for m in re.finditer(r"\{(\d*):([A-Z_]+):((?:\\.|[^\\}])*)\}", texto):
        opcoes = []
        for alt in re.split(r"(?<!\\)~", m.group(3)):
            achou = re.fullmatch(r"(=|%(-?\d+)%)?([^#]*)(?:#(.*))?", alt, re.S)
            fracao = 100 if achou.group(1) == "=" else int(achou.group(2) or 0)
            fb = html.unescape(achou.group(4) or "").replace("\\}", "}").replace("\\#", "#")
            opcoes.append((fracao, achou.group(3), fb))
        out.append((m.group(2), opcoes))
    return out


def _nota_lacuna(opcoes, x):
    for fracao, resp, fb in opcoes:
        valor, _, tol = resp.partition(":")
        if abs(x - float(valor)) <= float(tol or 0) * (1 + 1e-9):
            return fracao, fb
    return None, None


def test_moodle_cloze_uma_lacuna_numerica_por_componente(xml):
    qs = _questoes(xml)
    lidas = {q.name: q for q in parse_bytes(xml)["cloze"]}  # o moodle-xml-parser
    vistos = 0
    for i, k, v in _todas():
        if v.tipo != "vetor":
            continue
        vistos += 1
        nome = f"{i} · versão {k}"
        q = qs[nome][1]
        d = len(v.resposta)
        # o leitor da biblioteca: uma lacuna NUMERICAL por componente, o gabarito a 100%
        gaps = lidas[nome].gaps
        assert [g.sub_type for g in gaps] == ["NUMERICAL"] * d
        for c, g in enumerate(gaps):
            assert g.options[0].score == 100
            valor, tol = g.options[0].answer.split(":")
            assert _perto(v, float(valor), v.resposta[c]) and float(tol) == pytest.approx(_tol(v, v.resposta[c]))
            assert all(o.score == 0 for o in g.options[1:])
        # o leitor daqui, no texto cru: o aluno que digita o gabarito acerta tudo; quem comete um
        # erro típico vê o diagnóstico dele em alguma componente
        lac = _lacunas(q.findtext("questiontext/text"))
        assert [t for t, _ in lac] == ["NUMERICAL"] * d
        assert all(_nota_lacuna(ops, _digitado(v, v.resposta[c]))[0] == 100 for c, (_, ops) in enumerate(lac))
        for _, ops in lac:  # toda resposta se alcança: nenhuma dentro da tolerância de uma anterior
            valores = [float(r.split(":")[0]) for _, r, _ in ops]
            assert all(_nota_lacuna(ops[:j], x) == (None, None) for j, x in enumerate(valores)), (i, k)
        for e in v.erros:
            notas = [_nota_lacuna(ops, _digitado(v, e.valor[c])) for c, (_, ops) in enumerate(lac)]
            assert any(n == 0 and e.dica in fb and e.nome in fb for n, fb in notas), (i, k, e.nome)
            assert all(n in (0, 100) for n, _ in notas)
    assert vistos


def test_moodle_cloze_escapa_o_que_cortaria_a_lacuna(monkeypatch):
    """Um diagnóstico com } ~ # / " \\ não corta a lacuna, e chega inteiro ao aluno."""
    from livro.exercicios import base
    feio = 'chaves } til ~ cerquilha # barra / aspas " &lt;código&gt; e uma contrabarra no fim \\'
    original = base.versao

    def com_dica_feia(id_, semente=None):
        v = original(id_, semente)
        for e in v.erros:
            e.dica = feio
        return v
    monkeypatch.setattr("livro.exercicios.lms.versao", com_dica_feia)
    x = moodle_xml("t", ["treino-3"], None, 1)
    q = _questoes(x)["treino-3 · versão 1"][1]
    lac = _lacunas(q.findtext("questiontext/text"))
    assert len(lac) == 4
    assert any(feio in fb for _, ops in lac for _, _, fb in ops)
    assert all(fracao in (0, 100) for _, ops in lac for fracao, _, _ in ops)


def test_moodle_shortanswer_do_token(xml):
    qs = _questoes(xml)
    vistos = 0
    for i, k, v in _todas():
        if v.tipo != "token":
            continue
        vistos += 1
        q = qs[f"{i} · versão {k}"][1]
        assert q.findtext("usecase") == "0"
        certas = {a.findtext("text") for a in q.findall("answer") if a.get("fraction") == "100"}
        t = b.VOCAB[v.resposta]
        assert certas == {b.ESPACO + t.replace(b.ESPACO, ""), t.replace(b.ESPACO, "")}

        def nota(digitado):  # sem distinguir maiúsculas (usecase 0), a resposta aparada
            for a in q.findall("answer"):
                if a.findtext("text").lower() == digitado.strip().lower():
                    return float(a.get("fraction")), a.findtext("feedback/text")
            return None, None
        sem = t.replace(b.ESPACO, "")
        for digitado in (t, sem, " " + sem, sem.upper()):
            assert nota(digitado)[0] == 100
        for e in v.erros:
            nota_e, fb = nota(b.VOCAB[e.valor].replace(b.ESPACO, "").upper())
            assert nota_e == 0 and e.dica in fb
    assert vistos


def test_moodle_multichoice_da_escolha(xml):
    lidas = {q.name: q for q in parse_bytes(xml)["multichoice"]}  # o moodle-xml-parser
    vistos = 0
    for i, k, v in _todas():
        if v.tipo != "escolha":
            continue
        vistos += 1
        q = lidas[f"{i} · versão {k}"]
        assert q.single and not q.shuffle_answers and q.default_grade == PONTOS[i]
        rotulos = dict(v.opcoes)
        assert [o.answer for o in q.options] == [r for _, r in v.opcoes]
        assert [o.answer for o in q.options if o.score_fraction == 100] == [rotulos[v.resposta]]
        for e in v.erros:
            (opcao,) = [o for o in q.options if o.answer == rotulos[e.valor]]
            assert opcao.score_fraction == 0 and e.dica in opcao.feedback
        assert v.resolucao in q.general_feedback
    assert vistos


# ---------------------------------------------------------------------------
# QTI 2.1
# ---------------------------------------------------------------------------
def _arquivos(pacote):
    with zipfile.ZipFile(io.BytesIO(pacote)) as z:
        return {n: z.read(n) for n in z.namelist()}, z.infolist()


def _local(el):
    return etree.QName(el).localname


def test_qti_manifesto_teste_e_selecao(pacote):
    arqs, infos = _arquivos(pacote)
    assert [i.filename for i in infos] == sorted(arqs)
    assert {i.date_time for i in infos} == {(2020, 1, 1, 0, 0, 0)}
    man = etree.fromstring(arqs["imsmanifest.xml"])
    recursos = man.findall(f"{CP}resources/{CP}resource")
    for r in recursos:
        assert r.get("href") in arqs and [f.get("href") for f in r.findall(f"{CP}file")] == [r.get("href")]
    (teste,) = [r for r in recursos if r.get("type") == "imsqti_test_xmlv2p1"]
    itens = [r for r in recursos if r.get("type") == "imsqti_item_xmlv2p1"]
    assert len(itens) == len(IDS) * N
    assert {d.get("identifierref") for d in teste.findall(f"{CP}dependency")} == {r.get("identifier") for r in itens}
    t = etree.fromstring(arqs[teste.get("href")])
    assert t.tag == Q + "assessmentTest"
    secoes = t.findall(f"{Q}testPart/{Q}assessmentSection")
    assert [s.get("title") for s in secoes] == [EXERCICIOS[i].titulo for i in IDS]
    for i, s in zip(IDS, secoes):
        assert [(x.tag, x.get("select")) for x in s.findall(Q + "selection")] == [(Q + "selection", "1")]
        refs = s.findall(Q + "assessmentItemRef")
        assert len(refs) == N
        for k, ref in enumerate(refs, 1):
            item = etree.fromstring(arqs[ref.get("href")])
            assert item.get("identifier") == ref.get("identifier")
            assert item.get("title") == f"{i} · versão {k}"


def _avalia(item, respostas):
    """Roda o responseProcessing do item com as respostas; -> as saídas (SCORE, FEEDBACK, …)."""
    decl = {d.get("identifier"): d for d in item.iter(Q + "responseDeclaration")}
    saidas = {}
    for o in item.iter(Q + "outcomeDeclaration"):
        padrao = o.findtext(f"{Q}defaultValue/{Q}value")
        saidas[o.get("identifier")] = None if padrao is None else float(padrao)

    def conv(tipo, texto):
        return {"float": float, "integer": int}.get(tipo, str)(texto)

    def expr(el):
        tag, filhos = _local(el), [expr(f) for f in el]
        if tag == "variable":
            ident = el.get("identifier")
            return respostas.get(ident) if ident in decl else saidas[ident]
        if tag == "correct":
            d = decl[el.get("identifier")]
            return conv(d.get("baseType"), d.findtext(f"{Q}correctResponse/{Q}value"))
        if tag == "baseValue":
            return conv(el.get("baseType"), el.text)
        if tag == "isNull":
            return filhos[0] is None
        if None in filhos:
            return None
        if tag == "and":
            return all(filhos)
        if tag == "or":
            return any(filhos)
        if tag == "sum":
            return sum(filhos)
        if tag == "match":
            return filhos[0] == filhos[1]
        if tag == "stringMatch":
            a, c = filhos
            return a == c if el.get("caseSensitive") == "true" else a.lower() == c.lower()
        if tag == "equal":
            x, y = filhos
            t = [float(p) for p in (el.get("tolerance") or "0").split()]
            t0, t1 = t[0], t[-1]
            if el.get("toleranceMode") == "absolute":
                return y - t0 <= x <= y + t1
            if el.get("toleranceMode") == "relative":
                return y * (1 - t0 / 100) <= x <= y * (1 + t1 / 100)
            return x == y
        raise AssertionError(f"expressão que este intérprete não conhece: {tag}")

    def regras(lista):
        for r in lista:
            if _local(r) == "setOutcomeValue":
                saidas[r.get("identifier")] = expr(r[0])
            elif _local(r) == "responseCondition":
                for ramo in r:
                    if _local(ramo) == "responseElse":
                        regras(list(ramo))
                        break
                    if expr(ramo[0]) is True:
                        regras(list(ramo)[1:])
                        break
            else:
                raise AssertionError(f"regra que este intérprete não conhece: {_local(r)}")
    regras(list(item.find(Q + "responseProcessing")))
    return saidas


def _mostrados(item, saidas):
    """O texto dos modalFeedback que o aluno vê com essas saídas."""
    return ["".join(m.itertext()) for m in item.iter(Q + "modalFeedback")
            if m.get("showHide") == "show" and saidas.get(m.get("outcomeIdentifier")) == m.get("identifier")]


def _respostas(item, v, valor):
    """As respostas de um aluno que digitou `valor` (na forma que o item pede)."""
    if v.tipo == "vetor":
        return {f"RESPONSE_{c + 1}": _digitado(v, x) for c, x in enumerate(valor)}
    if v.tipo == "token":
        return {"RESPONSE": b.VOCAB[valor].replace(b.ESPACO, "").upper()}
    if v.tipo == "escolha":
        rotulo = dict(v.opcoes)[valor]
        (ident,) = [c.get("identifier") for c in item.iter(Q + "simpleChoice") if "".join(c.itertext()) == rotulo]
        return {"RESPONSE": ident}
    return {"RESPONSE": _digitado(v, valor)}


def test_qti_itens_pontuam_o_gabarito_e_diagnosticam_os_erros(pacote):
    arqs, _ = _arquivos(pacote)
    for i, k, v in _todas():
        item = etree.fromstring(arqs[f"itens/{i}-v{k:03d}.xml"])
        assert item.tag == Q + "assessmentItem"
        corpo = "".join(item.find(Q + "itemBody").itertext())
        assert _puro(v.enunciado) in corpo and tolerancia(v) in corpo
        interacoes = [_local(x) for x in item.find(Q + "itemBody").iter() if _local(x).endswith("Interaction")]
        esperado = (["textEntryInteraction"] * len(v.resposta) if v.tipo == "vetor"
                    else ["choiceInteraction"] if v.tipo == "escolha" else ["textEntryInteraction"])
        assert interacoes == esperado
        tipos = {d.get("baseType") for d in item.iter(Q + "responseDeclaration")}
        assert tipos == {{"inteiro": "integer", "token": "string", "escolha": "identifier"}.get(v.tipo, "float")}
        s = _avalia(item, _respostas(item, v, v.resposta))
        assert s["SCORE"] == pytest.approx(PONTOS[i]) and s["FEEDBACK"] == "CERTO", (i, k)
        assert s["MAXSCORE"] == PONTOS[i]
        assert any(_puro(v.resolucao) in t for t in _mostrados(item, s))
        for e in v.erros:
            s = _avalia(item, _respostas(item, v, e.valor))
            assert s["SCORE"] < PONTOS[i] and s["FEEDBACK"] != "CERTO", (i, k, e.nome)
            assert any(_puro(e.dica) in t and e.nome in t for t in _mostrados(item, s)), (i, k, e.nome)
        if v.tipo in ("numero", "prob", "inteiro"):
            s = _avalia(item, {"RESPONSE": 10 ** 9})
            assert s["SCORE"] == 0 and s["FEEDBACK"] is None
            assert _avalia(item, {})["SCORE"] == 0
        if v.tipo == "token":
            sem = b.VOCAB[v.resposta].replace(b.ESPACO, "")
            for digitado in (b.VOCAB[v.resposta], sem.lower(), " " + sem):
                assert _avalia(item, {"RESPONSE": digitado})["SCORE"] == PONTOS[i]


def test_qti_citolab_le_o_pacote_e_o_passa_para_o_qti3(pacote):
    arqs, _ = _arquivos(pacote)
    novo = upgrade_package(pacote).files
    assert set(novo) == set(arqs)
    man = novo["imsmanifest.xml"]
    man = man if isinstance(man, str) else man.decode()
    assert man.count("imsqti_item_xmlv3p0") == len(IDS) * N and "imsqti_test_xmlv3p0" in man
    teste = etree.fromstring(novo["teste.xml"].encode() if isinstance(novo["teste.xml"], str) else novo["teste.xml"])
    assert _local(teste) == "qti-assessment-test"
    sel = teste.xpath("//*[local-name()='qti-assessment-section']/*[local-name()='qti-selection']/@select")
    assert sel == ["1"] * len(IDS)
    for nome, texto in novo.items():
        if nome.startswith("itens/"):
            item = etree.fromstring(texto.encode() if isinstance(texto, str) else texto)
            assert _local(item) == "qti-assessment-item"
            assert item.xpath("count(//*[local-name()='qti-response-processing'])") == 1
            assert item.xpath("count(//*[local-name()='qti-modal-feedback'])") >= 2


# ---------------------------------------------------------------------------
# Bytes reprodutíveis, arquivos, linha de comando e entrada ruim
# ---------------------------------------------------------------------------
def test_os_mesmos_argumentos_dao_os_mesmos_bytes(xml, pacote, tmp_path):
    assert moodle_xml(LISTA, IDS, PONTOS, N) == xml and qti_zip(LISTA, IDS, PONTOS, N) == pacote
    assert moodle_xml("semana-5", IDS, PONTOS, N) != xml
    caminhos = escrever(LISTA, IDS, PONTOS, N, tmp_path / "saida")
    assert [c.name for c in caminhos] == ["moodle.xml", "qti21.zip"]
    assert caminhos[0].read_bytes() == xml and caminhos[1].read_bytes() == pacote
    assert semente_lms("semana-4", 7) == "lista:semana-4|lms:7"


def test_linha_de_comando(tmp_path, capsys):
    assert main(["--lista", "semana-4", "--exercicios", "mascaras-1,bloco-2", "--versoes", "2",
                 "--saida", str(tmp_path)]) == 0
    assert (tmp_path / "moodle.xml").read_bytes() == moodle_xml("semana-4", ["mascaras-1", "bloco-2"], None, 2)
    assert "qti21.zip" in capsys.readouterr().out
    main(["--lista", "s", "--exercicios", "bloco-2", "--versoes", "1", "--pontos", "bloco-2=2.5",
          "--saida", str(tmp_path)])
    assert etree.fromstring((tmp_path / "moodle.xml").read_bytes()).xpath("//defaultgrade/text()") == ["2.5"]
    with pytest.raises(SystemExit, match="exercício desconhecido: nada"):
        main(["--lista", "s", "--exercicios", "nada", "--saida", str(tmp_path)])
    with pytest.raises(SystemExit, match="pontos ilegíveis"):
        main(["--lista", "s", "--exercicios", "bloco-2", "--pontos", "bloco-2=dois", "--saida", str(tmp_path)])


@pytest.mark.parametrize("lista, ids, pontos, versoes, mensagem", [
    ("Semana 4", ["bloco-2"], None, 2, "nome de lista inválido"),
    ("semana/4", ["bloco-2"], None, 2, "nome de lista inválido"),
    ("", ["bloco-2"], None, 2, "nome de lista inválido"),
    ("s", [], None, 2, "a lista não tem exercícios"),
    ("s", ["bloco-9"], None, 2, "exercício desconhecido: bloco-9"),
    ("s", ["bloco-2", "bloco-2"], None, 2, "exercício repetido"),
    ("s", ["bloco-2"], None, 0, "número de versões inválido"),
    ("s", ["bloco-2"], None, 201, "número de versões inválido"),
    ("s", ["bloco-2"], None, 2.5, "número de versões inválido"),
    ("s", ["bloco-2"], {"bloco-3": 1}, 2, "pontos de um exercício que não está na lista"),
    ("s", ["bloco-2"], {"bloco-2": 0}, 2, "pontos inválidos para bloco-2"),
    ("s", ["bloco-2"], {"bloco-2": "1"}, 2, "pontos inválidos para bloco-2"),
])
def test_entrada_ruim_diz_o_que_houve_em_portugues(lista, ids, pontos, versoes, mensagem):
    for f in (moodle_xml, qti_zip):
        with pytest.raises(ValueError, match=mensagem):
            f(lista, ids, pontos, versoes)


def test_duzentas_versoes_cabem():
    assert etree.fromstring(moodle_xml("s", ["tokens-1"], None, 200)).xpath("count(question)") == 201


def test_o_exportador_nao_vai_ao_navegador():
    from livro_ext.widgets.navegador import modulos_navegador
    m = modulos_navegador()
    assert "livro/exercicios/base.py" in m and "livro/exercicios/lms.py" not in m
