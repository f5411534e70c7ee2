"""Uma lista de exercícios para o Moodle (XML) e para o QTI 2.1 (Canvas, Blackboard, …).

    python -m livro.exercicios.lms --lista semana-4 --exercicios mascaras-1,bloco-2 --versoes 20 --saida DIR

Cada exercício vira uma categoria do Moodle e uma seção do teste QTI, com `versoes` versões
sorteadas por `semente_lms(lista, k)`: a "questão aleatória" do Moodle (ou o `selection` do QTI)
dá a cada aluno uma delas. O gabarito leva a tolerância do livro; cada erro típico é uma
resposta de 0% com o diagnóstico; a resolução é o feedback geral. Os mesmos argumentos dão os
mesmos bytes. Só o CPython (não vai ao navegador) e só a biblioteca padrão.
"""
import argparse
import html
import io
import re
import sys
import zipfile
from pathlib import Path
from xml.etree import ElementTree as ET

from livro import brinquedo as b
from livro.exercicios import EXERCICIOS, versao
from livro.exercicios.base import esc
from livro.exercicios.confere import tolerancia

MAX_VERSOES = 200
NOME_LISTA = re.compile(r"[a-z0-9._-]+")
DATA_ZIP = (2020, 1, 1, 0, 0, 0)  # data fixa de todo arquivo do zip (bytes reprodutíveis)
QTI = "http://www.imsglobal.org/xsd/imsqti_v2p1"
QTI_XSD = "http://www.imsglobal.org/xsd/qti/qtiv2p1/imsqti_v2p1.xsd"
CP = "http://www.imsglobal.org/xsd/imscp_v1p1"
CP_XSD = "http://www.imsglobal.org/xsd/qti/qtiv2p1/qtiv2p1_imscpv1p2_v1p0.xsd"
XSI = "http://www.w3.org/2001/XMLSchema-instance"


class ListaInvalida(ValueError):
    """Argumentos que não fazem uma lista (mensagem em português)."""


def semente_lms(lista, k):
    """A semente da versão k (de 1 a n) de cada exercício da lista."""
    return f"lista:{lista}|lms:{k}"


# ---------------------------------------------------------------------------
# Conferir a entrada
# ---------------------------------------------------------------------------
def _valida(lista, ids, pontos, versoes):
    """-> (ids, {id: pontos}); ListaInvalida com a mensagem em português."""
    if not isinstance(lista, str) or not NOME_LISTA.fullmatch(lista):
        raise ListaInvalida(f"nome de lista inválido: {lista!r}. Use só letras minúsculas sem acento, "
                            "algarismos, ponto, hífen e sublinhado (como semana-4).")
    ids = [ids] if isinstance(ids, str) else list(ids or [])
    if not ids:
        raise ListaInvalida("a lista não tem exercícios: diga ao menos um id (como mascaras-1).")
    fora = [i for i in ids if i not in EXERCICIOS]
    if fora:
        raise ListaInvalida(f"exercício desconhecido: {', '.join(map(str, fora))}. "
                            f"Os ids do livro: {', '.join(EXERCICIOS)}.")
    repetidos = sorted({i for i in ids if ids.count(i) > 1})
    if repetidos:
        raise ListaInvalida(f"exercício repetido na lista: {', '.join(repetidos)}.")
    if isinstance(versoes, bool) or not isinstance(versoes, int) or not 1 <= versoes <= MAX_VERSOES:
        raise ListaInvalida(f"número de versões inválido: {versoes!r}. Peça de 1 a {MAX_VERSOES} "
                            "versões por exercício.")
    pontos = dict(pontos or {})
    fora = [i for i in pontos if i not in ids]
    if fora:
        raise ListaInvalida(f"pontos de um exercício que não está na lista: {', '.join(map(str, fora))}.")
    for i in ids:
        p = pontos.setdefault(i, 1)
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 < p < 1e6:
            raise ListaInvalida(f"pontos inválidos para {i}: {p!r}. Use um número maior que zero.")
    return ids, pontos


def _versoes(ids, lista, versoes):
    """{id: [Versao da 1ª à n-ésima]}."""
    return {i: [versao(i, semente_lms(lista, k)) for k in range(1, versoes + 1)] for i in ids}


# ---------------------------------------------------------------------------
# Peças comuns
# ---------------------------------------------------------------------------
def _n(x):
    """Um número no XML: ponto decimal, 12 algarismos significativos (o Moodle e o QTI leem 1e-05)."""
    if isinstance(x, int):
        return str(x)
    s = format(x, ".12g")
    return "0" if s == "-0" else s


def _tol(v, alvo):
    """A diferença aceita em torno de `alvo`, como o conferidor do livro (relativa ao alvo)."""
    return v.rel * abs(alvo) if v.rel else v.tol


def _grafias(i):
    """As grafias aceitas de um token, como no livro: com o ␣ e sem ele (a do vocabulário primeiro)."""
    t = b.VOCAB[i]
    sem = t.replace(b.ESPACO, "")
    return [t, sem] if t != sem else [t, b.ESPACO + t]


def _instrucao(v, qti=False):
    """O que o aluno digita, e a tolerância (a frase do livro)."""
    tol = tolerancia(v)
    if v.tipo == "prob":
        txt = "Responda com a probabilidade como um número decimal entre 0 e 1 (não em porcentagem)"
    elif v.tipo == "inteiro":
        txt = "Responda com um número inteiro, sem ponto de milhar"
    elif v.tipo == "vetor":
        txt = "Digite cada componente do vetor na sua caixa"
    elif v.tipo == "token":
        return ("Digite o token: o ␣, que marca o espaço na frente, é opcional, e maiúsculas ou "
                "minúsculas tanto faz.")
    elif v.tipo == "escolha":
        return "Escolha uma das opções."
    else:
        txt = "Responda com um número"
    if qti:
        txt += ", com ponto como separador decimal"
    return f"{txt} ({tol})." if tol else txt + "."


def _diagnostico(e):
    return f"<p><strong>{esc(e.nome)}</strong>: {e.dica}</p>"


def _geral(v):
    return f"<p><strong>Resposta: {esc(v.resposta_txt)}.</strong></p><p>{v.resolucao}</p>"


def _cdata(s):
    return "<![CDATA[" + s.replace("]]>", "]]]]><![CDATA[>") + "]]>"


def _texto(tag, s, fmt="html"):
    return f'<{tag} format="{fmt}"><text>{_cdata(s)}</text></{tag}>'


# ---------------------------------------------------------------------------
# Moodle XML
# ---------------------------------------------------------------------------
def _categoria(lista, id_):
    # no caminho de uma categoria do Moodle, "/" separa os níveis; uma barra no nome vira "//"
    titulo = EXERCICIOS[id_].titulo.replace("/", "//")
    return f"$course$/top/{lista}/{id_} · {titulo}"


def _resposta_moodle(fracao, valor, feedback, tol=None):
    t = "" if tol is None else f"<tolerance>{_n(tol)}</tolerance>"
    return (f'    <answer fraction="{fracao}" format="moodle_auto_format"><text>{esc(valor)}</text>{t}'
            f"{_texto('feedback', feedback)}</answer>")


def _cloze_feedback(s):
    """Um feedback dentro de {…}: o Moodle decodifica as entidades e corta no primeiro } ou ~."""
    return (s.replace("&", "&amp;").replace("\\", "&#92;").replace("}", "&#125;")
            .replace("~", "&#126;"))


def _cloze_gap(v, c, d):
    """Uma lacuna NUMERICAL da componente c: o gabarito e os erros que mudam essa componente."""
    alvo = v.resposta[c]
    respostas = []  # [valor, [erros]]: erros com o mesmo valor nesta componente dividem a resposta
    for e in v.erros:
        x = e.valor[c]
        if abs(x - alvo) <= _tol(v, alvo):
            continue
        for r in respostas:
            if abs(x - r[0]) <= _tol(v, r[0]):
                r[1].append(e)
                break
        else:
            respostas.append([x, [e]])
    partes = [f"={_n(alvo)}:{_n(_tol(v, alvo))}#{_cloze_feedback('Certo.')}"]
    for x, erros in respostas:
        fb = " ".join(f"<strong>{esc(e.nome)}</strong>: {e.dica}" for e in erros)
        partes.append(f"%0%{_n(x)}:{_n(_tol(v, x))}#{_cloze_feedback(fb)}")
    return f"componente {c + 1} de {d}: {{1:NUMERICAL:" + "~".join(partes) + "}"


def _questao_moodle(id_, k, v, pontos):
    nome = f"{id_} · versão {k}"
    enunciado = f"<p>{v.enunciado}</p><p>{esc(_instrucao(v))}</p>"
    if v.tipo in ("numero", "prob", "inteiro"):
        tipo = "numerical"
        corpo = [_resposta_moodle(100, _n(v.resposta), "<p>Certo.</p>", _tol(v, v.resposta))]
        corpo += [_resposta_moodle(0, _n(e.valor), _diagnostico(e), _tol(v, e.valor)) for e in v.erros]
        corpo.append("    <unitgradingtype>0</unitgradingtype><unitpenalty>0</unitpenalty>"
                     "<showunits>3</showunits><unitsleft>0</unitsleft>")
    elif v.tipo == "vetor":
        tipo = "multianswer"
        d = len(v.resposta)
        enunciado += "".join(f"<p>{_cloze_gap(v, c, d)}</p>" for c in range(d))
        corpo = []
    elif v.tipo == "token":
        tipo = "shortanswer"
        corpo = ["    <usecase>0</usecase>"]
        corpo += [_resposta_moodle(100, g, "<p>Certo.</p>") for g in _grafias(v.resposta)]
        corpo += [_resposta_moodle(0, g, _diagnostico(e)) for e in v.erros for g in _grafias(e.valor)]
    elif v.tipo == "escolha":
        tipo = "multichoice"
        diag = {}
        for e in v.erros:
            diag[e.valor] = diag.get(e.valor, "") + _diagnostico(e)
        corpo = ["    <single>true</single><shuffleanswers>0</shuffleanswers>"
                 "<answernumbering>none</answernumbering><showstandardinstruction>0</showstandardinstruction>",
                 "    " + _texto("correctfeedback", "<p>Certo.</p>"),
                 "    " + _texto("partiallycorrectfeedback", ""),
                 "    " + _texto("incorrectfeedback", "")]
        for valor, rotulo in v.opcoes:
            certo = valor == v.resposta
            corpo.append(f'    <answer fraction="{100 if certo else 0}" format="html">'
                         f"<text>{_cdata(esc(rotulo))}</text>"
                         + _texto("feedback", "<p>Certo.</p>" if certo else diag.get(valor, "")) + "</answer>")
    else:
        raise ListaInvalida(f"tipo de resposta sem exportação: {v.tipo!r} ({id_}).")
    # o cloze ("multianswer") se chama "cloze" no XML do Moodle
    return "\n".join([f'  <question type="{"cloze" if tipo == "multianswer" else tipo}">',
                      f"    <name><text>{esc(nome)}</text></name>",
                      "    " + _texto("questiontext", enunciado),
                      "    " + _texto("generalfeedback", _geral(v)),
                      f"    <defaultgrade>{_n(pontos)}</defaultgrade>",
                      "    <penalty>0</penalty>",
                      "    <hidden>0</hidden>",
                      *corpo,
                      "  </question>"])


def moodle_xml(lista, ids, pontos, versoes):
    """O XML do Moodle: uma categoria por exercício, uma questão por versão (bytes UTF-8)."""
    ids, pontos = _valida(lista, ids, pontos, versoes)
    todas = _versoes(ids, lista, versoes)
    partes = ['<?xml version="1.0" encoding="UTF-8"?>', "<quiz>"]
    for id_ in ids:
        info = (f"<p>{esc(EXERCICIOS[id_].titulo)}: {versoes} versões do exercício {esc(id_)}. "
                "No teste, acrescente uma questão aleatória desta categoria.</p>")
        partes += ['  <question type="category">',
                   f"    <category><text>{esc(_categoria(lista, id_))}</text></category>",
                   "    " + _texto("info", info),
                   "  </question>"]
        partes += [_questao_moodle(id_, k, v, pontos[id_]) for k, v in enumerate(todas[id_], 1)]
    partes.append("</quiz>\n")
    return "\n".join(partes).encode("utf-8")


# ---------------------------------------------------------------------------
# QTI 2.1
# ---------------------------------------------------------------------------
def _xhtml(s):
    """Um trecho de HTML do livro dentro do XML do QTI: como está, se for XML bem formado."""
    try:
        ET.fromstring(f"<p>{s}</p>")
        return s
    except ET.ParseError:
        return esc(html.unescape(re.sub(r"<[^>]*>", "", s)))


def _ident_item(id_, k):
    return f"{id_}-v{k:03d}"


def _valor(tipo, x):
    return f'<baseValue baseType="{tipo}">{esc(x)}</baseValue>'


def _set(ident, tipo, x):
    return f'<setOutcomeValue identifier="{ident}">{_valor(tipo, x)}</setOutcomeValue>'


def _igual(v, resp, alvo):
    """A condição "a resposta está perto de alvo", com a tolerância do livro."""
    var = f'<variable identifier="{resp}"/>'
    if v.rel and alvo > 0:
        t = _n(100 * v.rel)  # o QTI dá a tolerância relativa em porcentagem
        return f'<equal toleranceMode="relative" tolerance="{t} {t}">{var}{_valor("float", _n(alvo))}</equal>'
    t = _n(_tol(v, alvo))
    return f'<equal toleranceMode="absolute" tolerance="{t} {t}">{var}{_valor("float", _n(alvo))}</equal>'


def _condicao(v, valor, base):
    """A condição de uma resposta (o gabarito ou um erro) no tipo da versão."""
    if v.tipo in ("numero", "prob"):
        return _igual(v, "RESPONSE", valor)
    if v.tipo == "inteiro":
        return f'<match><variable identifier="RESPONSE"/>{_valor("integer", valor)}</match>'
    if v.tipo == "vetor":
        return "<and>" + "".join(_igual(v, f"RESPONSE_{c + 1}", x) for c, x in enumerate(valor)) + "</and>"
    if v.tipo == "token":
        return ("<or>" + "".join(f'<stringMatch caseSensitive="false"><variable identifier="RESPONSE"/>'
                                 f'{_valor("string", g)}</stringMatch>' for g in base) + "</or>")
    return f'<match><variable identifier="RESPONSE"/>{_valor("identifier", "OPCAO_" + valor)}</match>'


def _grafias_qti(i):
    """Com o ␣, sem ele e com um espaço de verdade na frente (nem todo sistema apara a resposta)."""
    sem = b.VOCAB[i].replace(b.ESPACO, "")
    return _grafias(i) + [" " + sem]


def _declaracoes(v, pontos):
    """As respostas (com o gabarito) e as saídas: SCORE, MAXSCORE, FEEDBACK e RESOLUCAO."""
    def decl(ident, tipo, certo):
        return (f'<responseDeclaration identifier="{ident}" cardinality="single" baseType="{tipo}">'
                f"<correctResponse><value>{esc(certo)}</value></correctResponse></responseDeclaration>")
    if v.tipo == "vetor":
        out = [decl(f"RESPONSE_{c + 1}", "float", _n(x)) for c, x in enumerate(v.resposta)]
    elif v.tipo == "token":
        out = [decl("RESPONSE", "string", b.VOCAB[v.resposta].replace(b.ESPACO, ""))]
    elif v.tipo == "escolha":
        out = [decl("RESPONSE", "identifier", "OPCAO_" + v.resposta)]
    else:
        out = [decl("RESPONSE", "integer" if v.tipo == "inteiro" else "float", _n(v.resposta))]
    out += ['<outcomeDeclaration identifier="SCORE" cardinality="single" baseType="float">'
            "<defaultValue><value>0</value></defaultValue></outcomeDeclaration>",
            '<outcomeDeclaration identifier="MAXSCORE" cardinality="single" baseType="float">'
            f"<defaultValue><value>{_n(pontos)}</value></defaultValue></outcomeDeclaration>",
            '<outcomeDeclaration identifier="FEEDBACK" cardinality="single" baseType="identifier"/>',
            '<outcomeDeclaration identifier="RESOLUCAO" cardinality="single" baseType="identifier"/>']
    return out


def _corpo(v):
    """O itemBody: o enunciado, a instrução e a(s) caixa(s) de resposta."""
    partes = [f"<p>{_xhtml(v.enunciado)}</p>", f"<p>{esc(_instrucao(v, qti=True))}</p>"]
    if v.tipo == "vetor":
        d = len(v.resposta)
        partes += [f'<p>componente {c + 1} de {d}: <textEntryInteraction responseIdentifier="RESPONSE_{c + 1}" '
                   'expectedLength="10"/></p>' for c in range(d)]
    elif v.tipo == "escolha":
        opcoes = "".join(f'<simpleChoice identifier="OPCAO_{valor}">{esc(rotulo)}</simpleChoice>'
                         for valor, rotulo in v.opcoes)
        partes.append('<choiceInteraction responseIdentifier="RESPONSE" shuffle="false" maxChoices="1">'
                      f"{opcoes}</choiceInteraction>")
    else:
        partes.append('<p><textEntryInteraction responseIdentifier="RESPONSE" expectedLength="15"/></p>')
    return "<itemBody>" + "".join(partes) + "</itemBody>"


def _processamento(v, pontos):
    """SCORE = pontos no gabarito (no vetor, uma parte por componente); FEEDBACK = o erro achado."""
    regras = [_set("RESOLUCAO", "identifier", "MOSTRA")]
    if v.tipo == "vetor":
        parte = _n(pontos / len(v.resposta))
        for c, x in enumerate(v.resposta):
            regras.append(f"<responseCondition><responseIf>{_igual(v, f'RESPONSE_{c + 1}', x)}"
                          '<setOutcomeValue identifier="SCORE"><sum><variable identifier="SCORE"/>'
                          f'{_valor("float", parte)}</sum></setOutcomeValue></responseIf></responseCondition>')
    base = _grafias_qti(v.resposta) if v.tipo == "token" else None
    certo = _condicao(v, v.resposta, base)
    pontua = "" if v.tipo == "vetor" else _set("SCORE", "float", _n(pontos))
    ramos = [f"<responseIf>{certo}{pontua}{_set('FEEDBACK', 'identifier', 'CERTO')}</responseIf>"]
    for j, e in enumerate(v.erros, 1):
        base = _grafias_qti(e.valor) if v.tipo == "token" else None
        ramos.append(f"<responseElseIf>{_condicao(v, e.valor, base)}"
                     f"{_set('FEEDBACK', 'identifier', f'ERRO_{j}')}</responseElseIf>")
    regras.append("<responseCondition>" + "".join(ramos) + "</responseCondition>")
    return "<responseProcessing>" + "".join(regras) + "</responseProcessing>"


def _feedbacks(v):
    def modal(saida, ident, titulo, corpo):
        return (f'<modalFeedback outcomeIdentifier="{saida}" identifier="{ident}" showHide="show" '
                f'title="{esc(titulo)}">{_xhtml(corpo)}</modalFeedback>')
    out = [modal("FEEDBACK", "CERTO", "Certo", "<p>Certo.</p>")]
    out += [modal("FEEDBACK", f"ERRO_{j}", e.nome, _diagnostico(e)) for j, e in enumerate(v.erros, 1)]
    out.append(modal("RESOLUCAO", "MOSTRA", "Resolução", _geral(v)))
    return out


def _item_qti(id_, k, v, pontos):
    titulo = f"{id_} · versão {k}"
    return "\n".join([
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<assessmentItem xmlns="{QTI}" xmlns:xsi="{XSI}" xsi:schemaLocation="{QTI} {QTI_XSD}" '
        f'identifier="{_ident_item(id_, k)}" title="{esc(titulo)}" adaptive="false" timeDependent="false">',
        *_declaracoes(v, pontos), _corpo(v), _processamento(v, pontos), *_feedbacks(v),
        "</assessmentItem>", ""])


def _teste_qti(lista, ids, versoes):
    secoes = []
    for id_ in ids:
        refs = "".join(f'<assessmentItemRef identifier="{_ident_item(id_, k)}" '
                       f'href="itens/{_ident_item(id_, k)}.xml"/>' for k in range(1, versoes + 1))
        secoes.append(f'<assessmentSection identifier="secao-{id_}" title="{esc(EXERCICIOS[id_].titulo)}" '
                      f'visible="true"><selection select="1"/>{refs}</assessmentSection>')
    return "\n".join([
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<assessmentTest xmlns="{QTI}" xmlns:xsi="{XSI}" xsi:schemaLocation="{QTI} {QTI_XSD}" '
        f'identifier="lista-{lista}" title="{esc(lista)}">',
        '<outcomeDeclaration identifier="SCORE" cardinality="single" baseType="float"/>',
        '<testPart identifier="parte" navigationMode="nonlinear" submissionMode="simultaneous">',
        *secoes, "</testPart>",
        '<outcomeProcessing><setOutcomeValue identifier="SCORE"><sum>'
        '<testVariables variableIdentifier="SCORE"/></sum></setOutcomeValue></outcomeProcessing>',
        "</assessmentTest>", ""])


def _manifesto(lista, ids, versoes):
    itens = [_ident_item(i, k) for i in ids for k in range(1, versoes + 1)]
    deps = "".join(f'<dependency identifierref="R-{it}"/>' for it in itens)
    recursos = [f'<resource identifier="R-lista-{lista}" type="imsqti_test_xmlv2p1" href="teste.xml">'
                f'<file href="teste.xml"/>{deps}</resource>']
    recursos += [f'<resource identifier="R-{it}" type="imsqti_item_xmlv2p1" href="itens/{it}.xml">'
                 f'<file href="itens/{it}.xml"/></resource>' for it in itens]
    return "\n".join([
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<manifest xmlns="{CP}" xmlns:xsi="{XSI}" xsi:schemaLocation="{CP} {CP_XSD}" '
        f'identifier="M-lista-{lista}">',
        "<metadata><schema>QTIv2.1 Package</schema><schemaversion>1.0.0</schemaversion></metadata>",
        "<organizations/>", "<resources>", *recursos, "</resources>", "</manifest>", ""])


def _zip(arquivos):
    """Um zip reprodutível: nomes em ordem, data fixa, permissões fixas."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for nome in sorted(arquivos):
            info = zipfile.ZipInfo(nome, date_time=DATA_ZIP)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            info.create_system = 3
            z.writestr(info, arquivos[nome].encode("utf-8"))
    return buf.getvalue()


def qti_zip(lista, ids, pontos, versoes):
    """Um pacote IMS QTI 2.1 (zip): o manifesto, um item por versão e o teste, que sorteia uma versão
    de cada exercício para cada aluno (`selection select="1"` em cada seção)."""
    ids, pontos = _valida(lista, ids, pontos, versoes)
    todas = _versoes(ids, lista, versoes)
    arquivos = {"imsmanifest.xml": _manifesto(lista, ids, versoes), "teste.xml": _teste_qti(lista, ids, versoes)}
    for id_ in ids:
        for k, v in enumerate(todas[id_], 1):
            arquivos[f"itens/{_ident_item(id_, k)}.xml"] = _item_qti(id_, k, v, pontos[id_])
    return _zip(arquivos)


def escrever(lista, ids, pontos, versoes, pasta):
    """Escreve pasta/moodle.xml e pasta/qti21.zip; -> [os dois caminhos]."""
    xml, pacote = moodle_xml(lista, ids, pontos, versoes), qti_zip(lista, ids, pontos, versoes)
    pasta = Path(pasta)
    pasta.mkdir(parents=True, exist_ok=True)
    (pasta / "moodle.xml").write_bytes(xml)
    (pasta / "qti21.zip").write_bytes(pacote)
    return [pasta / "moodle.xml", pasta / "qti21.zip"]


def main(argv=None):
    ap = argparse.ArgumentParser(description="Exporta uma lista de exercícios para o Moodle e o QTI 2.1.")
    ap.add_argument("--lista", required=True, help="o nome da lista (letras minúsculas, algarismos, . _ -)")
    ap.add_argument("--exercicios", required=True, help="os ids, separados por vírgula (mascaras-1,bloco-2)")
    ap.add_argument("--versoes", type=int, default=20, help=f"versões por exercício (de 1 a {MAX_VERSOES})")
    ap.add_argument("--pontos", default="", help="id=pontos, separados por vírgula (o padrão é 1)")
    ap.add_argument("--saida", required=True, help="a pasta dos arquivos")
    a = ap.parse_args(argv)
    ids = [i.strip() for i in a.exercicios.split(",") if i.strip()]
    try:
        pontos = {}
        for par in filter(None, (p.strip() for p in a.pontos.split(","))):
            id_, _, p = par.partition("=")
            try:
                pontos[id_.strip()] = float(p)
            except ValueError:
                raise ListaInvalida(f"pontos ilegíveis em {par!r}: escreva id=pontos, como bloco-2=2.") from None
        caminhos = escrever(a.lista, ids, pontos, a.versoes, a.saida)
    except ListaInvalida as e:
        raise SystemExit(f"erro: {e}") from None
    for c in caminhos:
        print(c)
    return 0


if __name__ == "__main__":
    sys.exit(main())
