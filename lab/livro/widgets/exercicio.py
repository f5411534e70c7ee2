"""O widget de um exercício conferido: `exercicio:<id>` (um por exercício, na página).

O leitor digita a resposta e aperta "Conferir": o Python do navegador (este arquivo, com
`livro.exercicios`) devolve o veredito, com o diagnóstico do erro típico com que a resposta bate.
"Outra versão" sorteia outros números de uma semente mostrada na tela (dois alunos comparam).
Sem JavaScript, a página mostra o enunciado e a resposta num dropdown, como os outros exercícios.

O veredito sai num elemento com `data-veredito="certo" | "errado" | "invalido"`; o enunciado da
versão atual vai num `<div data-lx-enunciado hidden>` da saída, que `_static/exercicios.js` copia
para o lugar do enunciado (acima do campo).
"""
from livro.exercicios import EXERCICIOS, versao
from livro.exercicios.confere import conferir, tolerancia
from livro.exercicios.lista import e_semente_de_lista, rotulo_versao
from livro.widgets import CLASSE
from livro.widgets.campos import ErroEntrada
from livro.widgets.html import botao, escapa, linha

PREFIXO = "exercicio:"
MAX_SEMENTE = 999999
LIVRO = "livro"


# modo: "" nas páginas; numa lista de quem ensina (book/lista.md), "lista" (o site confere) ou
# "lista-oculto" (o site só anota: quem confere é o professor). Numa lista não há resolução nem
# troca de versão, e a versão é a do aluno ("lista:L|aluno:m", livro.exercicios.lista).
MODOS = ("", "lista", "lista-oculto")


def padrao():
    return {"id": "", "resposta": "", "semente": LIVRO, "modo": "", "dica": "0"}


def ler_dica(valor, v):
    """Quantas dicas já estão à vista (0 a len(v.dicas)); um valor estragado volta a 0."""
    s = "" if valor is None else str(valor).strip()
    return min(int(s), len(v.dicas)) if s.isdigit() and len(s) < 4 else 0


def ler_modo(valor):
    m = "" if valor is None else str(valor).strip()
    if m not in MODOS:
        raise ErroEntrada("Modo desconhecido.")
    return m


def ler_semente(valor, modo=""):
    """'livro' (ou vazio) -> None; '123' -> 123; outra coisa -> ErroEntrada em português.
    Numa lista, só a semente de um aluno ('lista:L|aluno:m')."""
    s = "" if valor is None else str(valor).strip()
    if modo:
        if not e_semente_de_lista(s):
            raise ErroEntrada("A versão desta lista veio estragada: abra de novo o link da sua lista.")
        return s
    if s.lower() in ("", LIVRO):
        return None
    if not s.isdigit() or not 1 <= int(s) <= MAX_SEMENTE:
        raise ErroEntrada(f"A versão é «{LIVRO}» ou um número inteiro de 1 a {MAX_SEMENTE}.")
    return int(s)


def proxima(semente, inst):
    """A semente de "outra versão": depende da atual e da carga da página (inst), nunca se repete
    na hora."""
    h = 2166136261
    for ch in f"{inst or ''}|{semente or 0}":
        h = ((h ^ ord(ch)) * 16777619) % 2 ** 32
    nova = 1 + h % MAX_SEMENTE
    return nova if nova != semente else 1 + nova % MAX_SEMENTE


def _campo_resposta(v, valor):
    if v.tipo == "escolha":
        itens = "".join(f'<label class="lw-radio"><input type="radio" name="resposta" value="{escapa(k)}"'
                        f'{" checked" if str(k) == str(valor) else ""} disabled><span>{escapa(t)}</span></label>'
                        for k, t in v.opcoes)
        return f'<fieldset class="lw-grupo"><legend>{escapa(v.rotulo)}</legend>{itens}</fieldset>'
    modo = "text" if v.tipo in ("token", "vetor") else "decimal"
    exemplo = {"vetor": "[-0,5; 1,5]", "token": "␣gato", "prob": "0,25 ou 25%", "inteiro": "12"}.get(v.tipo, "0,25")
    return (f'<label class="lw-campo lx-campo"><span>{escapa(v.rotulo)}</span>'
            f'<input type="text" name="resposta" value="{escapa(valor)}" size="14" inputmode="{modo}" '
            f'placeholder="{escapa(exemplo)}" autocomplete="off" spellcheck="false" disabled></label>')


def formulario(campos):
    v = versao(campos["id"], campos["semente"] if campos.get("modo") else None)
    if campos.get("modo"):  # numa lista: só a resposta; a versão e o modo vão escondidos
        escondidos = "".join(f'<input type="hidden" name="{k}" value="{escapa(campos[k])}" disabled>'
                             for k in ("semente", "modo"))
        rotulo = "Conferir" if campos["modo"] == "lista" else "Anotar"
        return linha(_campo_resposta(v, campos.get("resposta", "")), botao(rotulo, "conferir", principal=True)) \
            + escondidos
    dica = (botao("Uma dica", "dica") + f'<input type="hidden" name="dica" value="{escapa(campos.get("dica", "0"))}" '
            'disabled>') if v.dicas else ""
    return (linha(_campo_resposta(v, campos.get("resposta", "")), botao("Conferir", "conferir", principal=True), dica)
            + linha(botao("Outra versão", "outra"), botao("Versão do livro", "livro"),
                    f'<label class="lw-campo lx-semente"><span>Versão</span><input type="text" name="semente" '
                    f'value="{escapa(campos.get("semente", LIVRO))}" size="7" autocomplete="off" '
                    f'spellcheck="false" disabled></label>'))


def enunciado(v):
    tol = tolerancia(v)
    return f'{v.enunciado}' + (f' <span class="lx-tol">({tol}.)</span>' if tol else "")


def resolucao(v):
    return (f'<details class="lx-resolucao"><summary>Resposta</summary>'
            f'<p><strong>{escapa(v.resposta_txt)}</strong>. {v.resolucao}</p></details>')


def dicas(v, n):
    """As n primeiras dicas da escada, em ordem (a resolução vem depois delas)."""
    if not n:
        return ""
    itens = "".join(f'<li data-lx-dica="{k}">{d}</li>' for k, d in enumerate(v.dicas[:n], 1))
    return f'<ol class="lx-dicas" data-lx-dicas="{n}" aria-label="Dicas">{itens}</ol>'


def veredito(v, texto, na_lista=False):
    """O HTML do veredito (com data-veredito) para a resposta digitada (numa lista, sem resolução)."""
    estado, erro, _, msg = conferir(v, texto)
    if estado == "invalido":
        corpo = escapa(msg)
    elif estado == "certo":
        corpo = f"Certo: {escapa(v.resposta_txt)}."
    elif erro is not None:
        corpo = (f"Ainda não. A sua resposta bate com um erro típico, <strong>{escapa(erro.nome)}</strong> "
                 f"(que daria {escapa(v.texto(erro.valor))}). Dica: {erro.dica}")
    else:
        corpo = ("Ainda não: a resposta não bate com o gabarito nem com os erros típicos que este exercício "
                 "conhece. Refaça a conta com calma" + ("." if na_lista else ", ou veja a resolução."))
    return f'<p class="lx-veredito lx-{estado}" data-veredito="{estado}">{corpo}</p>'


def _na_lista(v, campos, acao, semente):
    """O exercício numa lista: a versão do aluno, o veredito (se o site confere), nunca a resolução."""
    html = (f'<div data-lx-enunciado hidden>{enunciado(v)}</div>'
            f'<p class="lx-versao" data-lx-versao="{escapa(rotulo_versao(campos["id"], semente))}">'
            f'Versão {escapa(rotulo_versao(campos["id"], semente))} (a sua).</p>')
    if acao in ("outra", "livro"):
        raise ErroEntrada("Numa lista, a versão é a sua: aqui não dá para trocar de versão.")
    if acao == "conferir":
        if campos["modo"] == "lista":
            html += veredito(v, campos.get("resposta"), na_lista=True)
        else:
            estado, _, _, msg = conferir(v, campos.get("resposta"))
            corpo = (escapa(msg) if estado == "invalido" else
                     f"Resposta anotada: «{escapa(str(campos.get('resposta')).strip())}». Nesta lista, quem "
                     "confere é o professor, na correção; o site não diz se está certa.")
            html += f'<p class="lx-veredito lx-{"invalido" if estado == "invalido" else "anotado"}" ' \
                    f'data-veredito="{"invalido" if estado == "invalido" else "anotado"}">{corpo}</p>'
    return html, campos, ["outra", "livro"]


def calcula(campos, acao, inst):
    id_ = campos["id"]
    campos["modo"] = ler_modo(campos.get("modo"))
    semente = ler_semente(campos.get("semente"), campos["modo"])
    if campos["modo"]:
        return _na_lista(versao(id_, semente), campos, acao, semente)
    if acao in ("outra", "livro"):
        semente = proxima(semente, inst) if acao == "outra" else None
        campos["resposta"], campos["dica"] = "", "0"
    elif acao not in (None, "conferir", "dica"):
        raise ErroEntrada("Ação desconhecida.")
    campos["semente"] = LIVRO if semente is None else str(semente)
    v = versao(id_, semente)
    n = ler_dica(campos.get("dica"), v) + (acao == "dica")
    n = min(n, len(v.dicas))
    campos["dica"] = str(n)
    html = f'<div data-lx-enunciado hidden>{enunciado(v)}</div>'
    if acao == "conferir":
        html += veredito(v, campos.get("resposta"))
    elif acao in ("outra", "livro"):
        html += f'<p class="lx-nova">{"Versão do livro" if semente is None else f"Versão {semente}"}: o enunciado acima mudou.</p>'
    html += dicas(v, n) + resolucao(v)
    desligar = (["livro"] if semente is None else []) + (["dica"] if n >= len(v.dicas) else [])
    return html, campos, desligar, {"dica": "Sem mais dicas: a resolução está logo abaixo"} if v.dicas else {}


def html(id_, inst, semente=None, modo=""):
    """O exercício inteiro, como a página o mostra no build (a versão do livro), ou numa lista
    (a versão do aluno: semente "lista:L|aluno:m", modo "lista" ou "lista-oculto")."""
    ex = EXERCICIOS[id_]
    campos = {**padrao(), "id": id_, "modo": modo, "semente": semente if modo else LIVRO}
    saida, *_ = calcula(dict(campos), None, None)
    v = versao(id_, semente if modo else None)
    marca = " · transferência" if ex.transferencia else ""
    marca_modo = f' data-lx-modo="{escapa(modo)}"' if modo else ""
    return (f'<div class="{CLASSE}" data-widget="{PREFIXO}{escapa(id_)}" '
            f'data-exercicio="{escapa(id_)}"{marca_modo} id="{escapa(inst)}">'
            f'<p class="lw-titulo">Exercício conferido · {escapa(ex.titulo)}{marca}</p>'
            f'<div class="lx-enunciado">{enunciado(v)}</div>'
            f'<form class="lw-form" autocomplete="off" novalidate>{formulario(campos)}</form>'
            f'<p class="lw-status" role="status">Com JavaScript, o Python do navegador confere a sua resposta.</p>'
            f'<p class="lw-erro" role="alert" hidden></p>'
            f'<div class="lw-saida" aria-live="polite" role="region" '
            f'aria-label="Veredito: {escapa(ex.titulo)}">{saida}</div></div>')


REGISTRO = {"exercicio": (padrao, formulario, calcula)}
