"""O widget `lista` (a página `book/lista.md`): a lista de um aluno, aberta pelo link do professor.

O link (`livro.exercicios.lista.link`) traz a lista, a matrícula, os exercícios e se o site
confere. Conferido o link, a resposta traz cada exercício da lista como um widget
`exercicio:<id>` na versão do aluno, sem resolução nem troca de versão
(`livro.widgets.exercicio`, modo "lista" ou "lista-oculto"); `_static/lista.js` os tira da
saída deste widget e os liga. "Gerar código de entrega" devolve o código com as respostas
como foram digitadas (campo escondido `respostas`, um JSON que `lista.js` mantém).
"""
import json

from livro.exercicios import EXERCICIOS
from livro.exercicios.confere import Invalida
from livro.exercicios.lista import codigo, ler_link, semente
from livro.widgets import CLASSE
from livro.widgets import exercicio
from livro.widgets.html import botao, escapa, linha

TITULOS = {"lista": "A sua lista de exercícios", "entrega": "Entregar a lista"}


def padrao():
    return {"link": "", "respostas": ""}


def _escondidos(campos, nomes):
    # data-consulta: o navegador manda no campo a consulta do endereço da página (o link da lista)
    return "".join(f'<input type="hidden" name="{k}" value="{escapa(campos[k])}"'
                   f'{" data-consulta" if k == "link" else ""} disabled>' for k in nomes)


def formulario(campos):
    return _escondidos(campos, ["link"])


def formulario_entrega(campos):
    return linha(botao("Gerar código de entrega", "gerar", principal=True)) + _escondidos(campos, ["link", "respostas"])


def _respostas(texto):
    try:
        r = json.loads(texto or "{}")
    except ValueError:
        return {}
    return {k: v for k, v in r.items() if isinstance(v, str)} if isinstance(r, dict) else {}


def _cabeca(t):
    n = len(t["ids"])
    confere = ("O site confere cada resposta e diz se está certa, como nas páginas do livro."
               if t["conferir"] else
               "O site só anota as respostas: quem confere é o professor, na correção.")
    return (f'<div class="lx-lista-cabeca" data-lx-chave="{escapa(t["lista"] + ":" + t["m"])}">'
            f'<p><strong>Lista «{escapa(t["lista"])}»</strong> · matrícula <strong>{escapa(t["m"])}</strong> · '
            f'{n} {"exercício" if n == 1 else "exercícios"}. {confere} Não há resolução nem “outra versão”: '
            "os números de cada enunciado são os seus.</p></div>")


def _entrega(t, respostas):
    cod = codigo(t["lista"], t["m"], t["ids"], respostas)
    brancos = [EXERCICIOS[i].titulo for i in t["ids"] if not respostas.get(i, "").strip()]
    falta = (f'<p class="lx-brancos">Em branco: {escapa("; ".join(brancos))}. Você pode responder e gerar o '
             "código de novo.</p>") if brancos else ""
    return (f'<div class="lx-entrega">{falta}'
            f'<label class="lx-codigo"><span>O seu código de entrega</span>'
            f'<textarea readonly rows="4" spellcheck="false" data-lx-codigo>{escapa(cod)}</textarea></label>'
            f'<p><button type="button" class="lw-botao" data-lx-copiar>Copiar o código</button></p>'
            "<p>O código traz o nome da lista, a sua matrícula e cada resposta como você a digitou, com uma soma "
            "que pega um código cortado ou com um caractere trocado. Ele não diz se as respostas estão certas: a "
            "correção refaz todas as contas. Nada foi enviado a lugar nenhum: copie o código e entregue como o "
            "professor pediu (num e-mail, num campo de texto do Moodle).</p></div>")


def _tarefa(campos):
    try:
        return ler_link(campos.get("link")), ""
    except Invalida as e:  # sem link nenhum (a página do build): data-lx-sem-link
        sem = " data-lx-sem-link" if str(campos.get("link") or "").strip() in ("", "?") else ""
        return None, f'<p class="lx-lista-aviso" data-lx-lista-erro{sem}>{escapa(str(e))}</p>'


def calcula(campos, acao, inst):
    """A lista: o cabeçalho e cada exercício, na versão do aluno."""
    if acao is not None:
        raise Invalida("Ação desconhecida.")
    t, aviso = _tarefa(campos)
    if t is None:
        return aviso, campos, []
    s, modo = semente(t["lista"], t["m"]), "lista" if t["conferir"] else "lista-oculto"
    itens = "".join(exercicio.html(i, f"widget-exercicio-{i}", s, modo) for i in t["ids"])
    return _cabeca(t) + f'<div class="lx-lista-itens" data-lx-itens>{itens}</div>', campos, []


def calcula_entrega(campos, acao, inst):
    """O código de entrega (acao "gerar") das respostas de agora."""
    if acao not in (None, "gerar"):
        raise Invalida("Ação desconhecida.")
    t, aviso = _tarefa(campos)
    if t is None:
        return ('<p class="lx-lista-aviso">Abra a sua lista pelo link do professor; aqui aparece o código de '
                "entrega das suas respostas.</p>"), campos, ["gerar"]
    if acao is None:
        return ('<p class="lx-lista-aviso">Quando terminar (ou quando quiser guardar o que já fez), aperte '
                "«Gerar código de entrega».</p>"), campos, []
    return _entrega(t, _respostas(campos.get("respostas"))), campos, []


def html_de(nome, inst):
    """O widget como o build o mostra: sem link, só o aviso de como abrir a lista."""
    titulo = TITULOS[nome]
    padrao_, form, calc = REGISTRO[nome]
    campos = padrao_()
    saida, *_ = calc(dict(campos), None, None)
    return (f'<div class="{CLASSE}" data-widget="{nome}" id="{escapa(inst)}">'
            f'<p class="lw-titulo">{titulo}</p>'
            f'<form class="lw-form" autocomplete="off" novalidate>{form(campos)}</form>'
            f'<p class="lw-status" role="status">Com JavaScript, o Python do navegador abre a sua lista.</p>'
            f'<p class="lw-erro" role="alert" hidden></p>'
            f'<div class="lw-saida" aria-live="polite" role="region" aria-label="{titulo}">{saida}</div></div>')


REGISTRO = {"lista": (padrao, formulario, calcula), "entrega": (padrao, formulario_entrega, calcula_entrega)}
