/** A small element builder: h('button', { class: 'x', onclick }, 'Text'). */
export type Child = Node | string | number | null | undefined | false | Child[]
type Attrs = Record<string, unknown>

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attrs | null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag)
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue
    if (name.startsWith('on') && typeof value === 'function') el.addEventListener(name.slice(2), value as EventListener)
    else if (name === 'value' && 'value' in el) (el as HTMLInputElement).value = String(value)
    else el.setAttribute(name, value === true ? '' : String(value))
  }
  append(el, children)
  return el
}

export function append(el: Node, children: Child[]) {
  for (const c of children.flat(10 as 1) as Child[]) {
    if (c === null || c === undefined || c === false) continue
    el.appendChild(c instanceof Node ? c : document.createTextNode(String(c)))
  }
}

/** Replaces everything in `el`. */
export function render(el: Element, ...children: Child[]) {
  el.replaceChildren()
  append(el, children)
}

let ids = 0
/** A labelled control: the label's `for` names the control's id. */
export function field(label: string, control: HTMLElement, hint?: string) {
  control.id ||= `f${++ids}`
  return h('div', { class: 'field' }, h('label', { for: control.id }, label), control, hint ? h('small', { class: 'hint' }, hint) : null)
}

export const fmt = (n: number | null | undefined) => (n === null || n === undefined ? '—' : n.toLocaleString('en-US'))
export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }) + ' UTC' : '—')

/** A live region with a message: errors are the API's detail. */
export function notice(kind: 'error' | 'info' | 'ok', text: string) {
  return h('p', { class: `notice ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text)
}

/** Copies text; falls back to selecting it where the clipboard API is not offered. */
export async function copy(text: string, fallback?: HTMLTextAreaElement | HTMLInputElement) {
  try {
    await navigator.clipboard.writeText(text)
    return true
  } catch {
    if (fallback) {
      fallback.focus()
      fallback.select()
    }
    return false
  }
}
