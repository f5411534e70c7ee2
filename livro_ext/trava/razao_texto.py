"""A razão, a etapa do meio: de cada saída, glue e widget ao texto que o leitor vê (funções puras;
a regra do que entra está no CONTRIBUINDO.md, "Verificar")."""
from __future__ import annotations

import ast
import re

from bs4 import BeautifulSoup, NavigableString
from bs4.element import PreformattedString

from ..widgets import CLASSE_WIDGET, vezes
from .razao_codigo import Varredor

FIGURA = "(figura)"


def texto(v):
    return "".join(v) if isinstance(v, list) else str(v)


# O texto que o leitor vê num pedaço de HTML (widgets, diagramas em SVG, saídas em HTML), nunca o estilo.
_BLOCOS = set("address article aside blockquote br caption dd details div dl dt fieldset figcaption figure footer "
               "form h1 h2 h3 h4 h5 h6 header hr legend li main nav ol p pre section summary table tbody tfoot "
               "thead tr ul svg text title desc".split())     # svg...desc: no SVG, cada rótulo numa linha
_CELULAS = {"td", "th"}
_COLADOS = {"tspan"}                                    # SVG: o índice de W_U, colado à letra
_PULA = {"script", "style", "template", "head"}
_CAMPOS_TEXTO = {"", "text", "number", "search", "email", "url", "tel"}
_SEP_CELULA = "\x1f"


def _escondido(no) -> bool:
    estilo = no.get("style", "").replace(" ", "").lower()
    return no.name in _PULA or no.has_attr("hidden") or "display:none" in estilo or "visibility:hidden" in estilo


def _visivel(no, saida: list, oculto=False, pre=False):
    """Põe em `saida` os pedaços do texto visível de um nó (bs4). oculto: um ancestral está
    escondido; pre: dentro de <pre> ou <textarea> (os espaços ficam)."""
    if isinstance(no, NavigableString):
        if not oculto and not isinstance(no, PreformattedString):   # comentário, doctype, CDATA: fora
            saida.append(str(no) if pre else re.sub(r"\s+", " ", no))
        return
    tag, esconde = no.name, oculto or _escondido(no)
    if tag == "input":
        tipo = no.get("type", "").lower()
        if esconde:
            pass
        elif tipo in _CAMPOS_TEXTO:
            saida.append(f" [{no.get('value', '')}] ")
        elif tipo in ("checkbox", "radio"):
            saida.append(" [x] " if no.has_attr("checked") else " [ ] ")
        elif tipo in ("submit", "button", "reset") and no.get("value"):
            saida.append(f" {no['value']} ")
        return
    if no.can_be_empty_element:                         # br, hr, img...: sem filhos
        if tag in ("br", "hr") and not oculto:
            saida.append("\n")
        return
    if tag == "select":                                 # a opção escolhida, entre colchetes
        opcoes = no.find_all("option")
        escolhida = next((o for o in opcoes if o.has_attr("selected")), opcoes[0] if opcoes else None)
        pedacos = []
        if escolhida is not None:
            _visivel(escolhida, pedacos, esconde, pre)
        if not oculto:
            saida.append(" [" + " ".join("".join(pedacos).split()) + "] ")
        return
    abre = _SEP_CELULA if tag in _CELULAS else "\n" if tag in _BLOCOS else "" if tag in _COLADOS else " "
    if not esconde:
        saida.append(abre)
        if tag == "svg" and no.get("aria-label"):
            saida.append(f"\n(descrição: {no['aria-label']})\n")
    for filho in no.children:
        _visivel(filho, saida, esconde, pre or tag in ("pre", "textarea"))
    if not oculto:
        saida.append("\n" if tag in _BLOCOS else "" if tag in _COLADOS else " ")


def _texto_visivel(no) -> str:
    """O texto visível de um nó do bs4 (ou de um documento inteiro), uma linha por bloco."""
    saida, acima = [], [a for a in no.parents if a.name != "[document]"]
    _visivel(no, saida, any(map(_escondido, acima)), any(a.name in ("pre", "textarea") for a in acima))
    linhas = []
    for ln in "".join(saida).split("\n"):
        celulas = [" ".join(c.split()) for c in ln.split(_SEP_CELULA)]
        ln = " | ".join(c for c in celulas if c)
        if ln:
            linhas.append(ln)
    return "\n".join(linhas)


def widgets_no_html(h: str) -> dict:
    """{"widget:nome": texto visível} de cada widget de uma página HTML (o contêiner de classe
    `livro-widget`; o nome vem de `data-widget`, ou do id). Dois widgets iguais: `nome`, `nome-2`, ..."""
    sopa = BeautifulSoup(h, "html.parser")
    raizes = [w for w in sopa.find_all(class_=CLASSE_WIDGET) if w.find_parent(class_=CLASSE_WIDGET) is None]
    nomes = [w.get("data-widget") or w.get("id") or str(n) for n, w in enumerate(raizes, 1)]
    return {chave_do_widget(nome, vez): _texto_visivel(w) for nome, vez, w in zip(nomes, vezes(nomes), raizes)}


def chave_do_widget(nome: str, vez: int = 1) -> str:
    """`widget:NOME`, e `widget:NOME-2` para o 2º igual: o sufixo do id (api.id_do_widget), o nome como
    está (`widget:exercicio:x`). Importa a api aqui: a trava rápida troca o brinquedo depois."""
    from livro.widgets.api import id_do_widget

    return f"widget:{nome}" + id_do_widget(nome, vez).removeprefix(id_do_widget(nome))


def _latex(s: str) -> str:
    s = s.strip()
    cerca = next((c for c in ("$$", "$") if s.startswith(c) and s.endswith(c)), "")
    s = s[len(cerca):len(s) - len(cerca)]
    return s.strip().removeprefix(r"\displaystyle").strip()


def _limpa(s: str) -> str:
    return "\n".join(ln.rstrip() for ln in s.strip("\n").splitlines())


_FLOAT_LONGO = re.compile(r"(?<![\w.])-?\d+\.\d{10,}(?:e[-+]?\d+)?(?![\w.])")


def floats_curtos(s: str) -> str:
    """repr de float com 17 dígitos -> 12 significativos (o último dígito depende da libm)."""
    return _FLOAT_LONGO.sub(lambda m: repr(float(format(float(m.group()), ".12g"))), s)


# O texto de cada tipo MIME; a ordem de preferência de cada um (o valor colado, a saída de célula).
_MIMES = {"text/latex": _latex, "text/markdown": _limpa, "text/plain": _limpa,
          "text/html": lambda h: _texto_visivel(BeautifulSoup(h, "html.parser"))}
_ORDEM_GLUE = ("text/latex", "text/markdown", "text/html")
_ORDEM_SAIDA = ("text/html", "text/markdown", "text/latex", "text/plain")


def valor_glue(data: dict) -> str:
    """O valor colado como o leitor o vê (string já formatada, LaTeX ou figura)."""
    mime = next((m for m in _ORDEM_GLUE if m in data), None)
    if mime:
        return _MIMES[mime](texto(data[mime]))
    if any(k.startswith("image/") for k in data):
        return FIGURA
    if "text/plain" not in data:
        return ""
    try:                                  # o repr de uma string colada: o texto, sem as aspas
        return _limpa(str(ast.literal_eval(texto(data["text/plain"]))))
    except (SyntaxError, ValueError):
        return _limpa(texto(data["text/plain"]))


def valor_saida(out: dict) -> str | None:
    """O texto que uma saída de célula mostra, ou None se não é texto para o leitor."""
    if out.get("output_type") == "stream":
        return _limpa(texto(out.get("text", ""))) if out.get("name") == "stdout" else None
    data = out.get("data", {}) if out.get("output_type") in ("execute_result", "display_data") else {}
    if any(k.startswith(("image/", "application/vnd.jupyter.widget", "application/javascript")) for k in data):
        return None
    mime = next((m for m in _ORDEM_SAIDA if m in data), None)
    return _MIMES[mime](texto(data[mime])) if mime else None


TAG_FORA = "nao-travar"
TAG_CONSTANTE = "constante"
TAGS_INVISIVEIS = {"remove-cell", "remove-output"}

# Saídas que mudam a cada execução: nunca são números do livro.
VOLATEIS = [
    re.compile(r"\bat 0x[0-9a-fA-F]{4,}"),          # <objeto at 0x7f…>
    re.compile(r"\b0x[0-9a-fA-F]{8,}\b"),           # endereços soltos
    re.compile(r"Wall time|CPU times|per loop|\bit/s\b|s/it\b"),
]


# Caracteres de controle num valor colado são quase sempre um "\t" ou "\f" de LaTeX numa
# string sem r"": "\times" vira TAB + "imes". O \n é o único permitido (quebra de linha).
_CONTROLE_COLADO = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")
_CONTROLE_SAIDA = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")      # a saída pode ter TAB
# ... e um "\n" de LaTeX perdido: "\neq" numa string sem r"" vira quebra de linha + "eq".
_LATEX_PERDIDO = re.compile(r"\n(?:eq|abla|eg|ewline|onumber|olimits|otin|leq|geq|mid|parallel|subseteq)"
                            r"(?![a-zA-Z])")


# Números em notação científica: "5,0 · 10⁻¹⁶", "10⁻¹⁶", "5{,}0 \\cdot 10^{-16}", "2.2e-16".
_SOBRE = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
_CIENT = re.compile(
    r"(?:(?P<m1>\d+(?:[.,]\d+)?)\s*[·×]\s*)?10(?P<e1>⁻[⁰¹²³⁴⁵⁶⁷⁸⁹]+)"
    r"|(?:(?P<m2>\d+(?:\{,\}\d+|[.,]\d+)?)\s*\\(?:cdot|times)\s*)?10\^\{?(?P<e2>-\d+)\}?"
    r"|(?<![\w.])(?P<m3>\d+(?:\.\d+)?)[eE](?P<e3>-\d+)\b")
LIMITE_RESIDUO = 1e-12


def residuos(valor: str) -> list[str]:
    """Os números em notação científica abaixo de 10⁻¹²: residuos("5,0 · 10⁻¹⁶ e 10⁻⁵") == ['5,0 · 10⁻¹⁶']."""
    achados = []
    for m in _CIENT.finditer(valor):
        for i in "123":
            if m.group("e" + i) is None:
                continue
            mant = (m.group("m" + i) or "1").replace("{,}", ".").replace(",", ".")
            exp = int(m.group("e" + i).translate(_SOBRE))
            if float(mant) * 10.0 ** exp < LIMITE_RESIDUO:
                achados.append(m.group(0))
    return achados


def _problemas_de_residuo(chave: str, valor: str) -> list[str]:
    ruins = residuos(valor)
    if not ruins:
        return []
    return [f"{chave}: parece um resíduo de arredondamento ({', '.join(ruins)} em {curto(valor, 80)}); "
            f"o valor depende da máquina: imprima um limite, ou, se é uma constante do setup "
            f"(ε, tolerância), cole-o numa célula com a tag `{TAG_CONSTANTE}`"]


_NOMES_CONTROLE = {"\t": "TAB", "\r": "CR", "\x0c": "FF", "\x08": "BS", "\x07": "BEL", "\x0b": "VT",
                   "\x00": "NUL", "\x1b": "ESC"}


def controles(texto: str, saida=False) -> list[str]:
    """Os caracteres de controle proibidos num texto, nomeados ("U+0009 (TAB)")."""
    padrao = _CONTROLE_SAIDA if saida else _CONTROLE_COLADO
    return sorted({f"U+{ord(c):04X} ({_NOMES_CONTROLE.get(c, 'controle')})" for c in padrao.findall(texto)})


def _problemas_do_glue(chave: str, data: dict) -> list[str]:
    achados = []
    for mime in ("text/latex", "text/markdown", "text/html"):
        if mime in data:
            bruto = texto(data[mime])
            achados += controles(bruto)
            if mime == "text/latex":
                achados += ["\\n seguido de um comando LaTeX (um \\neq, \\nabla... sem r\"\")"
                            for _ in _LATEX_PERDIDO.findall(bruto)[:1]]
    valor = valor_glue(data)
    achados += controles(valor)
    if not achados:
        return []
    return [f"{chave}: caractere de controle no valor colado: {', '.join(sorted(set(achados)))} "
            f"em {curto(repr(valor), 80)} (use uma string r\"...\" no LaTeX)"]


def _saidas(outputs: list) -> list:
    """As saídas de uma célula, com os pedaços seguidos de um stream juntados (sob carga o kernel os parte)."""
    res = []
    for out in outputs:
        ant = res[-1] if res else {}
        if (out.get("output_type") == "stream" and ant.get("output_type") == "stream"
                and ant.get("name") == out.get("name")):
            res[-1] = dict(ant, text=texto(ant.get("text", "")) + texto(out.get("text", "")))
        else:
            res.append(out)
    return res


def itens_do_notebook(nb: dict, glue: dict) -> tuple[dict, list, list]:
    """Um notebook executado (dict) e seus glue -> ({chave: valor}, [avisos], [problemas])."""
    itens, avisos, problemas, fora, constantes = {}, [], [], [], []
    varredor = Varredor()
    n_codigo = 0
    for cell in nb.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        n_codigo += 1
        tags = set(cell.get("metadata", {}).get("tags", []) or [])
        chaves = [padrao for padrao, _, _ in varredor.celula(texto(cell.get("source", "")))]
        if TAG_FORA in tags:
            fora += chaves
            continue
        constante = TAG_CONSTANTE in tags
        if constante:
            constantes += chaves
        if tags & TAGS_INVISIVEIS:
            continue
        for j, out in enumerate(_saidas(cell.get("outputs", [])), 1):
            v = valor_saida(out)
            if v is None or v == "":
                continue
            chave = f"celula:{n_codigo:02d}.{j}"
            if any(p.search(v) for p in VOLATEIS):
                avisos.append(f"{chave}: saída volátil pulada (marque a célula com `{TAG_FORA}`)")
                continue
            ruins = controles(v, saida=True)
            if ruins:
                problemas.append(f"{chave}: caractere de controle na saída: {', '.join(ruins)}")
            if not constante:
                problemas += _problemas_de_residuo(chave, v)
            itens[chave] = floats_curtos(v)
    for chave, out in glue.items():
        if any(re.fullmatch(p, chave) for p in fora):
            continue
        data = out.get("data", {})
        problemas += _problemas_do_glue(chave, data)
        itens[chave] = valor_glue(data)
        if not any(re.fullmatch(p, chave) for p in constantes):
            problemas += _problemas_de_residuo(chave, itens[chave])
    return itens, avisos, problemas


def itens_dos_widgets(h: str) -> tuple[dict, list]:
    """O HTML de uma página (ou só dos seus widgets) -> ({chave: texto visível}, [problemas])."""
    itens = widgets_no_html(h)
    return itens, [p for chave, v in itens.items() for p in _problemas_de_residuo(chave, v)]


def curto(s: str, n=140) -> str:
    """Um valor numa linha só (⏎ no lugar da quebra, caractere de controle visível), cortado em n."""
    s = s.replace("\n", " ⏎ ")
    s = _CONTROLE_COLADO.sub(lambda m: f"\\x{ord(m.group()):02x}", s)   # um TAB fica visível
    return s if len(s) <= n else s[: n - 1] + "…"
