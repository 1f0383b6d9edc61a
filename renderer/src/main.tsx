import { render } from 'preact';
import { App } from './app';
import { applyPrefs } from './instance/prefs';
import './styles/app.css';

// The theme and motion chosen in Settings apply before the first paint.
applyPrefs();
const root = document.getElementById('app');
if (root) render(<App />, root);
