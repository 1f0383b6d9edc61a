import { measureElement, observeWindowOffset, observeWindowRect, Virtualizer, windowScroll } from '@tanstack/virtual-core';
import { useEffect, useLayoutEffect, useReducer, useState } from 'preact/hooks';

/**
 * TanStack's virtualizer bound to the window's scroll, for Preact: only the posts near the
 * viewport are in the DOM; each is measured once rendered (posts differ in height), and
 * `scrollMargin` is where the list starts on the page.
 */
export function useWindowVirtualizer(options: { count: number; estimateSize: (index: number) => number; getItemKey: (index: number) => string; scrollMargin: number; overscan?: number }): Virtualizer<Window, HTMLElement> {
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const [instance] = useState(
    () =>
      new Virtualizer<Window, HTMLElement>({
        count: options.count,
        getScrollElement: () => window,
        estimateSize: options.estimateSize,
        getItemKey: options.getItemKey,
        scrollToFn: windowScroll,
        observeElementRect: observeWindowRect,
        observeElementOffset: observeWindowOffset,
        measureElement,
        initialOffset: () => window.scrollY,
        overscan: options.overscan ?? 4,
        scrollMargin: options.scrollMargin,
        onChange: () => rerender(0),
      }),
  );
  instance.setOptions({
    ...instance.options,
    count: options.count,
    estimateSize: options.estimateSize,
    getItemKey: options.getItemKey,
    scrollMargin: options.scrollMargin,
  });
  useEffect(() => instance._didMount(), [instance]);
  useLayoutEffect(() => instance._willUpdate());
  return instance;
}
